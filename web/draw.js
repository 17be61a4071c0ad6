/* draw.js - the table in SVG, shared by every page that shows it: the live
 * table page (web/app.js), the hall's pages (hall/server/hall_page.html,
 * hall_stream.html) and the replay ('tabletrack replay --html', which
 * inlines it at build time: see cmake/inline.cmake), so they look alike:
 * felt and 6" grid, terrain by kind, figures by side with their facing,
 * hidden and lost figures faded, and the answers' lines, circles, cones,
 * rings and labels.  All answer drawing is here (answers, prim), so a new
 * kind of answer is drawn once for every page.
 * Coordinates are table inches, y down the table, as everywhere.
 *   import * as TTDraw from './draw.js';  (words and declutter come too) */
import {words} from './words.js';
export {words} from './words.js';
export {declutter} from './labels.js';

const NS = 'http://www.w3.org/2000/svg';
/* the same colours as the projector and the replay (record/rec_game.c) */
export const TERRAIN = {building: '#8d6e63', wall: '#5d4037', hedge: '#558b2f', woods: '#2e7d32',
                        hill: '#c5b58a', river: '#4f8fcf', rough: '#a1887f', breastworks: '#795548',
                        road: '#bdb29a', marsh: '#6f9f8f', fence: '#8a6d3b'};
export const SIDES = ['#c0392b', '#2e6fd8', '#e6a817', '#27ae60', '#8e44ad', '#16a085', '#d35400', '#7f8c8d'];
/* answer colours: colour-blind-safe, as on the felt */
export const ROLE = {clear: '#56b4e9', blocked: '#d55e00', short: '#009e73', medium: '#f0e442', long: '#e69f00',
                     arc: '#e69f00', blast: '#d55e00', ball: '#f0e442', command: '#cc79a7', target: '#f0e442',
                     neutral: '#ffffff'};
const STATE_OPACITY = [1, 0.6, 0.25]; /* seen, occluded (hidden by a hand), lost */

export function el(name, attrs, parent) {
  var e = document.createElementNS(NS, name);
  for (var k in attrs) e.setAttribute(k, attrs[k]);
  if (parent) parent.appendChild(e);
  return e;
}

/* Felt, grid and the layers, in svg, for a W x H table. */
export function board(svg, W, H, margin) {
  var M = margin === undefined ? 1.5 : margin;
  svg.textContent = '';
  svg.setAttribute('viewBox', [-M, -M, W + 2 * M, H + 2 * M].join(' '));
  el('rect', {x: -M, y: -M, width: W + 2 * M, height: H + 2 * M, fill: '#1d1f21'}, svg);
  var felt = el('rect', {x: 0, y: 0, width: W, height: H, fill: '#4b7a3b', stroke: '#0d0d0d', 'stroke-width': 0.2,
                         'class': 'felt'}, svg);
  var grid = el('g', {stroke: 'rgba(255,255,255,0.13)', 'stroke-width': 0.04}, svg);
  for (var gx = 6; gx < W; gx += 6) el('line', {x1: gx, y1: 0, x2: gx, y2: H}, grid);
  for (var gy = 6; gy < H; gy += 6) el('line', {x1: 0, y1: gy, x2: W, y2: gy}, grid);
  return {felt: felt, terrain: el('g', {id: 'terrain'}, svg),
          trails: el('g', {id: 'trails', fill: 'none', 'stroke-linecap': 'round', 'stroke-linejoin': 'round'}, svg),
          over: el('g', {id: 'overlays'}, svg), figs: el('g', {id: 'figures'}, svg),
          top: el('g', {id: 'top'}, svg)};
}

export function terrainColour(kind) { return TERRAIN[kind] || '#9e9e9e'; }

/* Where the sides of a top pts (a polygon) sloping out over run inches
 * meet the felt: each edge's line moved out by run, corners where two
 * meet (a hip, or a valley at a corner that points in), as the rules have
 * it (docs/rules.md, Sloped hills). */
export function slopeFoot(pts, run) {
  var n = pts.length, area = 0, lines = [];
  for (var i = 0; i < n; i++) area += pts[i][0] * pts[(i + 1) % n][1] - pts[(i + 1) % n][0] * pts[i][1];
  for (i = 0; i < n; i++) {
    var a = pts[i], b = pts[(i + 1) % n], L = Math.hypot(b[0] - a[0], b[1] - a[1]) || 1;
    var d = [(b[0] - a[0]) / L, (b[1] - a[1]) / L], s = area > 0 ? 1 : -1;
    lines.push({p: [a[0] + s * d[1] * run, a[1] - s * d[0] * run], d: d});
  }
  return lines.map(function (l2, k) {
    var l1 = lines[(k + n - 1) % n], cr = l1.d[0] * l2.d[1] - l1.d[1] * l2.d[0];
    if (Math.abs(cr) < 1e-9) return l2.p; /* a straight corner */
    var t = ((l2.p[0] - l1.p[0]) * l2.d[1] - (l2.p[1] - l1.p[1]) * l2.d[0]) / cr;
    return [l1.p[0] + t * l1.d[0], l1.p[1] + t * l1.d[1]];
  });
}

/* One terrain piece {id, kind, pts: [[x, y]...], closed, colour, slope_in}
 * (slope_in: its sides' run, drawn as where they meet the felt). */
export function terrain(g, t) {
  var pts = t.pts.map(function (p) { return p[0] + ',' + p[1]; }).join(' ');
  var c = t.colour || terrainColour(t.kind), shape;
  if (t.closed && t.slope_in > 0 && t.pts.length >= 3)
    el('polygon', {points: slopeFoot(t.pts, t.slope_in).map(function (p) { return p[0] + ',' + p[1]; }).join(' '),
                   fill: c, 'fill-opacity': 0.35, stroke: c, 'stroke-width': 0.08, 'stroke-dasharray': '0.4 0.25',
                   'class': 'slope', 'data-kind': t.kind}, g);
  if (t.closed)
    shape = el('polygon', {points: pts, fill: c, 'fill-opacity': 0.8, stroke: '#1b1b1b', 'stroke-width': 0.08,
                           'data-kind': t.kind}, g);
  else
    shape = el('polyline', {points: pts, fill: 'none', stroke: c, 'stroke-width': 0.5, 'stroke-linecap': 'round',
                            'data-kind': t.kind}, g);
  var cx = 0, cy = 0;
  t.pts.forEach(function (p) { cx += p[0]; cy += p[1]; });
  var lab = el('text', {x: cx / t.pts.length, y: cy / t.pts.length + 0.4, 'class': 'terrain-label'}, g);
  lab.textContent = t.id || t.kind;
  return shape;
}

/* A figure {r, colour, label, title}: a disc with a facing tick and its
 * name below.  Returns {g, body}; move it with place(). */
export function figure(g, f) {
  var fg = el('g', {'class': 'fig'}, g);
  var body = el('g', {}, fg);
  el('circle', {r: f.r, fill: f.colour, stroke: '#111', 'stroke-width': 0.07}, body);
  el('line', {x1: 0, y1: 0, x2: f.r + 0.35, y2: 0, stroke: '#fff', 'stroke-width': 0.14, 'stroke-linecap': 'round'},
     body);
  var lab = el('text', {x: 0, y: f.r + 0.8, 'class': 'fig-label'}, fg);
  lab.textContent = f.label;
  if (f.title) el('title', {}, fg).textContent = f.title;
  return {g: fg, body: body, label: lab};
}

/* state: 0 seen, 1 occluded, 2 lost (faded). */
export function place(fe, x, y, facing, state) {
  fe.g.removeAttribute('display');
  fe.g.setAttribute('transform', 'translate(' + x + ' ' + y + ')');
  fe.body.setAttribute('transform', 'rotate(' + facing + ')');
  fe.g.setAttribute('opacity', STATE_OPACITY[state] === undefined ? 1 : STATE_OPACITY[state]);
}

/* One drawn answer part: {type: line|circle|sector|polygon|ring|mark|label, ...}
 * (a line is dashed unless solid; a mark is a cross where a shot landed).
 * ringAt(p) gives {x, y, r} for a ring around a figure. */
export function prim(g, p, ringAt) {
  var c = p.colour || '#ffeb3b';
  if (p.type === 'line') {
    el('line', {x1: p.a[0], y1: p.a[1], x2: p.b[0], y2: p.b[1], stroke: c, 'stroke-width': 0.18,
                'stroke-dasharray': p.solid ? 'none' : '0.6 0.3'}, g);
    if (p.label) {
      var lt = el('text', {x: (p.a[0] + p.b[0]) / 2, y: (p.a[1] + p.b[1]) / 2 - 0.4, 'class': 'ov-label'}, g);
      lt.textContent = p.label;
    }
  } else if (p.type === 'circle') {
    el('circle', {cx: p.c[0], cy: p.c[1], r: p.r, fill: c, 'fill-opacity': 0.28, stroke: c, 'stroke-width': 0.12}, g);
  } else if (p.type === 'sector') {
    var a0 = p.a0 * Math.PI / 180, a1 = p.a1 * Math.PI / 180;
    var d = 'M' + p.c[0] + ',' + p.c[1] + ' L' + (p.c[0] + p.r * Math.cos(a0)) + ',' + (p.c[1] + p.r * Math.sin(a0)) +
            ' A' + p.r + ',' + p.r + ' 0 ' + (p.a1 - p.a0 > 180 ? 1 : 0) + ' 1 ' +
            (p.c[0] + p.r * Math.cos(a1)) + ',' + (p.c[1] + p.r * Math.sin(a1)) + ' Z';
    el('path', {d: d, fill: c, 'fill-opacity': 0.3, stroke: c, 'stroke-width': 0.12}, g);
  } else if (p.type === 'polygon') {
    el('polygon', {points: p.pts.map(function (q) { return q[0] + ',' + q[1]; }).join(' '), fill: c,
                   'fill-opacity': 0.25, stroke: c, 'stroke-width': 0.1}, g);
  } else if (p.type === 'ring') {
    var pos = ringAt(p);
    if (pos) el('circle', {cx: pos.x, cy: pos.y, r: pos.r + 0.3, fill: 'none', stroke: c, 'stroke-width': 0.18,
                           'class': 'ov-ring'}, g);
  } else if (p.type === 'mark') {
    var k = 0.45, x = p.at[0], y = p.at[1];
    el('path', {d: 'M' + (x - k) + ',' + (y - k) + ' L' + (x + k) + ',' + (y + k) + ' M' + (x - k) + ',' + (y + k) +
                   ' L' + (x + k) + ',' + (y - k), stroke: c, 'stroke-width': 0.16, fill: 'none', 'class': 'ov-mark'}, g);
  } else if (p.type === 'label') {
    var tx = el('text', {x: p.at[0], y: p.at[1], 'class': 'ov-label'}, g);
    tx.textContent = p.text;
  }
}

/* An answers() opts.radius from a ruleset's profile and the roster (the
 * live page has both): a blast's radius is its question's, else its
 * weapon's (the question's, else the firer's in the roster), 1" for a
 * blast with neither; a command radius is the profile's. */
export function profileRadius(rules, roster) {
  return function (q) {
    if (q.q === 'command') return rules && rules.command_radius_in;
    if (q.q !== 'blast' && q.q !== 'deviate') return 0;
    if (q.radius_in) return q.radius_in;
    var wname = q.weapon;
    (roster || []).forEach(function (r) { if (!wname && r.id === q.from) wname = r.weapon; });
    var w = rules && rules.weapons && wname ? rules.weapons[wname] : null;
    return w && w.blast_radius_in ? w.blast_radius_in : (q.q === 'blast' ? 1 : 0);
  };
}

/* The answers shown [{query, answer}] drawn in g (the board's overlay
 * layer) from the geometry each answer carries, else from where its
 * figures stand: lines of sight and shots (by range band), a charge's
 * path, a move, a blast and where a shell landed, a grape's cone, a
 * command radius, what a figure sees, the figures hit ringed.
 * find(id) -> {x, y, facing_deg} or null.  opts.radius(q, a): a blast's
 * or command's radius when neither the answer nor the question gives one
 * (default 1" for a blast, 12" for command, as the replay's); opts.labels:
 * each answer's words beside its drawing (ov-label). */
export function answers(g, shown, find, opts) {
  opts = opts || {};
  var pt = function (f) { return f ? [f.x, f.y] : null; };
  shown.forEach(function (s) {
    var q = s.query || {}, a = s.answer || {}, parts = [];
    if (a.error) return;
    var from = find(a.charger || q.from), to = typeof q.to === 'string' ? find(a.target || q.to) : null;
    var ok = a.visible !== false && a.ok !== false && !(q.q === 'fire' && a.to_hit === null);
    var colour = ok ? ROLE.clear : ROLE.blocked;
    var radius = function (dflt) {
      return a.radius_in || q.radius_in || (opts.radius && opts.radius(q, a)) || dflt;
    };
    var add = function (p) {
      parts.push(p);
      prim(g, p, function (r) { return {x: r.fig.x, y: r.fig.y, r: opts.figR || 0.55}; });
    };
    var line = function (p1, p2, c, solid) { if (p1 && p2) add({type: 'line', a: p1, b: p2, colour: c, solid: solid}); };
    if (Array.isArray(a.shots) && a.shots.length && q.q === 'fire') /* a unit's fire: every firer's line */
      a.shots.forEach(function (sh) { line(pt(find(sh.from)), pt(find(sh.to || q.to)), ROLE[sh.bracket] || colour, true); });
    else if (Array.isArray(a.path)) /* a charge's own path (a unit's from its front-centre) */
      line(a.path[0], a.path[1], colour, ok);
    else if (Array.isArray(a.line)) /* the answer's own line of sight */
      line(a.line[0], a.line[1], q.q === 'fire' ? (ROLE[a.bracket] && ok ? ROLE[a.bracket] : colour) : colour, ok);
    else if (q.q === 'ball')
      line(pt(from), to ? pt(to) : q.at, ROLE.ball, true);
    else if (from && to)
      line(pt(from), pt(to), q.q === 'fire' && ok && ROLE[a.bracket] ? ROLE[a.bracket] : colour, ok);
    if (from && Array.isArray(q.to))
      line(pt(from), q.to, colour, ok);
    if (q.q === 'blast' && (Array.isArray(a.centre) || Array.isArray(q.at)))
      add({type: 'circle', c: a.centre || q.at, r: radius(1), colour: ROLE.blast});
    if (q.q === 'deviate' && Array.isArray(a.impact)) {
      line(pt(from), q.at, ROLE.clear, false);
      line(q.at, a.impact, ROLE.blast, true);
      add({type: 'mark', at: a.impact, colour: ROLE.blast});
      if (a.went_off !== false && radius(0))
        add({type: 'circle', c: a.impact, r: radius(0), colour: ROLE.blast});
    }
    if (q.q === 'grape' && Array.isArray(a.polygon) && a.polygon.length >= 3)
      add({type: 'polygon', pts: a.polygon, colour: ROLE.arc});
    else if (q.q === 'grape' && from) {
      var arc = a.arc_deg || 30, fc = from.facing_deg || 0;
      add({type: 'sector', c: a.centre || pt(from), r: radius(6), a0: fc - arc / 2, a1: fc + arc / 2, colour: ROLE.arc});
    }
    if (q.q === 'command' && from)
      add({type: 'circle', c: pt(from), r: radius(12), colour: ROLE.command});
    if (q.q === 'visibility' && Array.isArray(a.polygon) && a.polygon.length >= 3)
      add({type: 'polygon', pts: a.polygon, colour: ROLE.clear});
    (a.targets || a.hit || a.touched || []).forEach(function (id) {
      var f = find(id);
      if (f) add({type: 'ring', fig: f, colour: ROLE.target});
    });
    if (opts.labels && parts.length) {
      /* the words above the drawing: a circle's top, else the middle of the first line */
      var p = parts[0], at = p.type === 'line' ? [(p.a[0] + p.b[0]) / 2, (p.a[1] + p.b[1]) / 2 - 0.6]
        : p.c ? [p.c[0], p.c[1] - p.r - 0.6] : p.at ? [p.at[0], p.at[1] - 1] : p.fig ? [p.fig.x, p.fig.y - 1.4]
        : p.pts ? p.pts[0] : null;
      if (at) prim(g, {type: 'label', at: at, text: words(q, a).big});
    }
  });
}

/* A live state (/api/state, or a hall's copy of one) on svg: board,
 * terrain and figures, coloured by side in the order sides (an object
 * kept by the caller) first met them.  opts: {margin, r (a figure's
 * radius), answers (draw state.shown with answers(); its opts)}.
 * Returns {layers, find(id)}. */
export function live(svg, st, sides, opts) {
  opts = opts || {};
  var W = (st.table && st.table.width_in) || 72, H = (st.table && st.table.depth_in) || 48;
  var layers = board(svg, W, H, opts.margin === undefined ? 0.5 : opts.margin);
  (st.terrain || []).forEach(function (t) {
    var pts = t.polygon || t.line || [];
    if (pts.length)
      terrain(layers.terrain, {id: t.id, kind: t.kind, pts: pts, closed: !!t.polygon, slope_in: t.slope_in});
  });
  var byId = {}, r = opts.r || Math.max(0.6, W / 60);
  (st.figures || []).forEach(function (f) {
    var side = f.side || '?';
    if (!(side in sides)) sides[side] = Object.keys(sides).length;
    var fe = figure(layers.figs, {r: r, colour: SIDES[sides[side] % SIDES.length],
                                  label: f.id || String(f.tag), title: (f.id || f.tag) + ' (' + side + ')'});
    fe.g.setAttribute('data-tag', f.tag);
    place(fe, f.x, f.y, f.facing_deg || 0, {seen: 0, occluded: 1, lost: 2}[f.state] || 0);
    if (f.id) byId[f.id] = f;
    byId[String(f.tag)] = f;
  });
  var find = function (id) { return id === undefined || id === null ? null : byId[String(id)] || null; };
  if (opts.answers) {
    opts.answers.figR = r;
    answers(layers.over, st.shown || [], find, opts.answers);
  }
  return {layers: layers, find: find};
}
