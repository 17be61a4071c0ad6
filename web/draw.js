/* draw.js - the table in SVG, shared by every page that shows it: the live
 * table page (web/app.js), the hall's pages (hall/server/hall_page.html,
 * hall_stream.html) and the replay ('tabletrack replay --html', which
 * inlines it at build time: see cmake/inline.cmake), so they look alike:
 * felt and 6" grid, terrain by kind, figures by side with their facing,
 * hidden and lost figures faded, and the answers: each answer's look,
 * table_look's primitives (table/table_look.c describes every answer kind
 * once, for the felt and the pages), painted by look() here.
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

/* ---- what an answer looks like: table_look's primitives ----
 * Every answer the table serves carries its "look" (docs/api.md, "What an
 * answer looks like"): primitives in table inches with roles, described
 * once in C (table/table_look.c) for the felt and every page.  look() is
 * the pages' one painter of them; it knows shapes and roles, never answer
 * kinds.  A page shows the table small, so its lines are PAGE_WIDTH times
 * the felt's. */
const PAGE_WIDTH = 2.25, DASH = '0.6 0.3';
let clipN = 0;

function pts(p) { return p.map(function (q) { return q[0] + ',' + q[1]; }).join(' '); }

/* The outline of a closed primitive as SVG attributes (circle, or a path). */
function outline(p) {
  if (p.kind === 'circle') return {name: 'circle', a: {cx: p.at[0], cy: p.at[1], r: p.r_in}};
  if (p.kind === 'polygon') return {name: 'path', a: {d: 'M' + pts(p.points).replace(/ /g, ' L') + ' Z'}};
  var c = p.at, r1 = p.r_in, r0 = p.r0_in || 0, ring = p.kind === 'ring';
  var a0 = (ring ? 0 : p.a0_deg) * Math.PI / 180, a1 = (ring ? 359.99 : p.a1_deg) * Math.PI / 180;
  var big = a1 - a0 > Math.PI ? 1 : 0;
  var at = function (r, a) { return (c[0] + r * Math.cos(a)) + ',' + (c[1] + r * Math.sin(a)); };
  var d = 'M' + at(r1, a0) + ' A' + r1 + ',' + r1 + ' 0 ' + big + ' 1 ' + at(r1, a1);
  if (p.kind === 'arc') return {name: 'path', a: {d: d}, open: true};
  d += r0 > 0 ? ' L' + at(r0, a1) + ' A' + r0 + ',' + r0 + ' 0 ' + big + ' 0 ' + at(r0, a0) + ' Z'
              : ' L' + c[0] + ',' + c[1] + ' Z';
  return {name: 'path', a: {d: d, 'fill-rule': 'evenodd'}};
}

/* One primitive in g.  A plain outline circle (no fill, not dashed) is a
 * ring (class ov-ring), text an ov-label; a 2-point polyline a <line>. */
export function lookPrim(g, p) {
  var c = ROLE[p.role] || ROLE.neutral, w = (p.width_in || 0) * PAGE_WIDTH;
  var stroke = {stroke: w > 0 ? c : 'none', 'stroke-width': w, 'stroke-dasharray': p.dashed ? DASH : 'none',
                'stroke-opacity': p.alpha === undefined ? 1 : p.alpha, 'data-role': p.role};
  if (p.kind === 'tag_mask') return; /* the felt's: no light on the tags */
  if (p.kind === 'text') {
    var t = el('text', {x: p.at[0], y: p.at[1], 'class': 'ov-label', fill: c, 'font-size': p.size_in / 0.7,
                        'dominant-baseline': 'central', 'data-role': p.role}, g);
    if (p.angle_deg) t.setAttribute('transform', 'rotate(' + p.angle_deg + ' ' + p.at[0] + ' ' + p.at[1] + ')');
    t.textContent = p.text;
    return;
  }
  if (p.kind === 'polyline') {
    var two = p.points.length === 2;
    el(two ? 'line' : 'polyline', Object.assign(two ? {x1: p.points[0][0], y1: p.points[0][1], x2: p.points[1][0],
                                                       y2: p.points[1][1]} : {points: pts(p.points)},
                                               {fill: 'none', 'stroke-linecap': 'round'}, stroke), g);
    return;
  }
  var o = outline(p), fill = p.fill_alpha > 0 && !o.open;
  if (fill && p.band_in > 0) { /* only a band inside the edge: a wide stroke clipped to the shape */
    var id = 'tt-band-' + (++clipN);
    el(o.name, o.a, el('clipPath', {id: id}, g));
    el(o.name, Object.assign({fill: 'none', stroke: c, 'stroke-width': 2 * p.band_in, 'stroke-opacity': p.fill_alpha,
                              'clip-path': 'url(#' + id + ')'}, o.a), g);
    fill = false;
  }
  var plain = p.kind === 'circle' && !fill && !p.dashed && !(p.band_in > 0);
  el(o.name, Object.assign({fill: fill ? c : 'none', 'fill-opacity': fill ? p.fill_alpha : 0}, stroke, o.a,
                           plain ? {'class': 'ov-ring'} : {}), g);
}

/* An answer's look (its primitives, in order) in g. */
export function look(g, prims) { (prims || []).forEach(function (p) { lookPrim(g, p); }); }

/* Where words go above a look: over its first line, else over its first shape. */
function wordsAt(prims) {
  var p = prims.filter(function (q) { return q.kind === 'polyline'; })[0] ||
          prims.filter(function (q) { return q.kind !== 'text' && q.kind !== 'tag_mask'; })[0];
  if (!p) return null;
  if (!p.points) return [p.at[0], p.at[1] - (p.r_in || 0) - 0.6];
  if (p.points.length === 2)
    return [(p.points[0][0] + p.points[1][0]) / 2, (p.points[0][1] + p.points[1][1]) / 2 - 0.6];
  var xs = p.points.map(function (q) { return q[0]; }), ys = p.points.map(function (q) { return q[1]; });
  return [(Math.min.apply(null, xs) + Math.max.apply(null, xs)) / 2, Math.min.apply(null, ys) - 0.6];
}

/* The answers shown [{query, answer, look}] in g (the board's overlay
 * layer), each from its look; opts.labels: each answer's words too, above
 * its drawing (ov-label), for pages seen from afar (the hall's). */
export function answers(g, shown, opts) {
  opts = opts || {};
  (shown || []).forEach(function (s) {
    if (!s || !Array.isArray(s.look)) return;
    look(g, s.look);
    var at = opts.labels && !(s.answer || {}).error ? wordsAt(s.look) : null;
    if (at) el('text', {x: at[0], y: at[1], 'class': 'ov-label'}, g).textContent = words(s.query || {}, s.answer || {}).big;
  });
}

/* A live state (/api/state, or a hall's copy of one) on svg: board,
 * terrain and figures, coloured by side in the order sides (an object
 * kept by the caller) first met them.  opts: {margin, r (a figure's
 * radius), answers (draw state.shown's looks with answers(); its opts)}.
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
  if (opts.answers) answers(layers.over, st.shown || [], opts.answers);
  return {layers: layers, find: find};
}
