/* view.js - the live page's table in a player's hand: zoom and pan (two
 * fingers pinch about the fingers, one finger or a mouse drag pans, the
 * wheel zooms about the pointer, Fit shows the whole table again), taps
 * told apart from drags, and what lies within a fingertip's reach of a tap.
 * The view is the SVG's viewBox, in table inches: figures stay drawn in
 * their own frames, and cards and buttons (outside the SVG) keep their size.
 * Labels keep their size on screen: --ipx on the SVG is inches per CSS px.
 *   import * as TTView from './view.js'; */

export const REACH_PX = 7 / 25.4 * 96; /* a fingertip: about 7 mm on screen */
const TAP_SLOP_PX = 10; /* a finger that moves less than this taps */
const MAX_ZOOM = 12;

/* attach(svg, {tap(x, y, ev), grab(x, y) -> drag handler or null, changed()})
 * tap: a tap or click at client (x, y); grab: a pointer went down there,
 * return {move(x, y), end(x, y)} to drag something instead of panning. */
export function attach(svg, h) {
  var full = null, view = null; /* the whole board's box; the box shown (null: fit) */
  var ptrs = {}, gest = null;

  function box() { return view || full; }
  function zoom() { return full && view ? full.w / view.w : 1; }
  function apply(quiet) {
    if (!full) return;
    var v = box();
    svg.setAttribute('viewBox', [v.x, v.y, v.w, v.h].join(' '));
    var ctm = svg.getScreenCTM();
    if (ctm && ctm.a > 0) svg.style.setProperty('--ipx', 1 / ctm.a + 'px');
    svg.classList.toggle('zoomed', !!view);
    if (h.changed && quiet !== true) h.changed();
  }
  /* The board was (re)drawn with viewBox b: keep the view inside it. */
  function board(b) {
    var nf = {x: b[0], y: b[1], w: b[2], h: b[3]};
    if (!full || full.x !== nf.x || full.y !== nf.y || full.w !== nf.w || full.h !== nf.h) view = null;
    full = nf;
    apply(true);
  }
  /* Show the table mapped as client = a * inches + (ex, ey), within the
   * zoom limits and the board. */
  function setMap(a, ex, ey) {
    var ctm = svg.getScreenCTM();
    if (!ctm || !full) return;
    var v = box();
    /* the viewBox's left/top edge stays where it is on screen (meet) */
    var Lx = ctm.e + ctm.a * v.x, Ly = ctm.f + ctm.d * v.y, aFull = ctm.a * v.w / full.w;
    var z = Math.max(1, Math.min(MAX_ZOOM, a / aFull));
    if (z < 1.001) { view = null; apply(); return; }
    a = aFull * z;
    var n = {w: full.w / z, h: full.h / z};
    n.x = Math.max(full.x, Math.min(full.x + full.w - n.w, (Lx - ex) / a));
    n.y = Math.max(full.y, Math.min(full.y + full.h - n.h, (Ly - ey) / a));
    view = n;
    apply();
  }
  /* Zoom by factor f about client point (px, py). */
  function zoomAt(px, py, f) {
    var ctm = svg.getScreenCTM();
    if (!ctm) return;
    var tx = (px - ctm.e) / ctm.a, ty = (py - ctm.f) / ctm.d, a = ctm.a * f;
    setMap(a, px - a * tx, py - a * ty);
  }
  /* Centre (x, y) inches at zoom z (at least the zoom now). */
  function show(x, y, z) {
    var ctm = svg.getScreenCTM(), r = svg.getBoundingClientRect();
    if (!ctm) return;
    var a = ctm.a / zoom() * Math.max(z, zoom());
    setMap(a, r.left + r.width / 2 - a * x, r.top + r.height / 2 - a * y);
  }
  function fit() { view = null; apply(); }
  /* client point -> table inches */
  function toTable(px, py) {
    var ctm = svg.getScreenCTM();
    return [(px - ctm.e) / ctm.a, (py - ctm.f) / ctm.d];
  }
  function toScreen(x, y) {
    var ctm = svg.getScreenCTM();
    return [ctm.a * x + ctm.e, ctm.d * y + ctm.f];
  }
  function pxPerInch() { var ctm = svg.getScreenCTM(); return ctm ? ctm.a : 1; }

  function two() {
    var ids = Object.keys(ptrs), p = ptrs[ids[0]], q = ptrs[ids[1]];
    return {d: Math.hypot(p.x - q.x, p.y - q.y), x: (p.x + q.x) / 2, y: (p.y + q.y) / 2};
  }
  svg.addEventListener('pointerdown', function (ev) {
    if (ev.pointerType === 'mouse' && ev.button !== 0) return;
    try { svg.setPointerCapture(ev.pointerId); } catch (e) { /* a synthetic pointer */ }
    ptrs[ev.pointerId] = {x: ev.clientX, y: ev.clientY};
    var n = Object.keys(ptrs).length, ctm = svg.getScreenCTM();
    if (n === 1) {
      var drag = h.grab ? h.grab(ev.clientX, ev.clientY) : null;
      gest = {kind: drag ? 'drag' : 'tap', drag: drag, x0: ev.clientX, y0: ev.clientY, a: ctm.a, e: ctm.e, f: ctm.f};
    } else if (n === 2) {
      var t = two();
      gest = {kind: 'pinch', d0: Math.max(t.d, 1), x0: t.x, y0: t.y, a: ctm.a, e: ctm.e, f: ctm.f};
    }
    ev.preventDefault();
  });
  svg.addEventListener('pointermove', function (ev) {
    var p = ptrs[ev.pointerId];
    if (!p || !gest) return;
    p.x = ev.clientX;
    p.y = ev.clientY;
    if (gest.kind === 'tap' && Math.hypot(p.x - gest.x0, p.y - gest.y0) > TAP_SLOP_PX) gest.kind = 'pan';
    if (gest.kind === 'pan')
      setMap(gest.a, gest.e + p.x - gest.x0, gest.f + p.y - gest.y0);
    else if (gest.kind === 'drag')
      gest.drag.move(p.x, p.y);
    else if (gest.kind === 'pinch' && Object.keys(ptrs).length === 2) {
      /* the table point under the fingers' midpoint at the start follows it */
      var t = two(), a = gest.a * t.d / gest.d0;
      var tx = (gest.x0 - gest.e) / gest.a, ty = (gest.y0 - gest.f) / gest.a;
      setMap(a, t.x - a * tx, t.y - a * ty);
    }
  });
  function up(ev, cancel) {
    var p = ptrs[ev.pointerId];
    if (!p) return;
    delete ptrs[ev.pointerId];
    var g = gest;
    if (Object.keys(ptrs).length === 0) gest = null;
    else if (g && g.kind === 'pinch') gest = {kind: 'done'}; /* the other finger lifts next */
    if (!g || cancel) return;
    if (g.kind === 'drag') g.drag.end(ev.clientX, ev.clientY);
    else if (g.kind === 'tap') h.tap(ev.clientX, ev.clientY, ev);
  }
  svg.addEventListener('pointerup', function (ev) { up(ev, false); });
  svg.addEventListener('pointercancel', function (ev) { up(ev, true); });
  svg.addEventListener('wheel', function (ev) {
    ev.preventDefault();
    var dy = ev.deltaMode === 1 ? ev.deltaY * 16 : ev.deltaY;
    zoomAt(ev.clientX, ev.clientY, Math.exp(-dy * 0.002));
  }, {passive: false});
  window.addEventListener('resize', apply);

  return {board: board, fit: fit, zoomAt: zoomAt, show: show, zoom: zoom, toTable: toTable, toScreen: toScreen,
          pxPerInch: pxPerInch, box: function () { var v = box(); return v && [v.x, v.y, v.w, v.h]; }};
}

/* Items [{x, y, ...}] (inches) within reach of client point (px, py),
 * nearest first, each with d: its distance in px.  r_in: an item's own
 * radius in inches (a tap on its edge is as good as one at its centre). */
export function within(v, items, px, py, r_in) {
  var k = v.pxPerInch(), reach = REACH_PX + r_in * k, out = [];
  items.forEach(function (it) {
    var s = v.toScreen(it.x, it.y), d = Math.hypot(s[0] - px, s[1] - py);
    if (d <= reach) out.push({item: it, d: d});
  });
  out.sort(function (a, b) { return a.d - b.d; });
  return out;
}

/* The nearest point of the corners and edges of lines [{pts: [[x, y]...],
 * closed}] (closed: the last point joins the first) within half a
 * fingertip of client (px, py) (a whole one would swallow the corners of
 * a thin piece): corners first, then edges; null if none. */
export function snap(v, lines, px, py) {
  var t = v.toTable(px, py), reach = REACH_PX / 2 / v.pxPerInch(), best = null, bd = reach;
  lines.forEach(function (l) {
    l.pts.forEach(function (p) {
      var d = Math.hypot(p[0] - t[0], p[1] - t[1]);
      if (d <= bd) { bd = d; best = [p[0], p[1]]; }
    });
  });
  if (best) return best;
  bd = reach;
  lines.forEach(function (l) {
    var n = l.pts.length;
    for (var i = 0; i + 1 < n || (l.closed && i < n && n > 2); i++) {
      var a = l.pts[i], b = l.pts[(i + 1) % n], dx = b[0] - a[0], dy = b[1] - a[1], L = dx * dx + dy * dy;
      var u = L > 0 ? Math.max(0, Math.min(1, ((t[0] - a[0]) * dx + (t[1] - a[1]) * dy) / L)) : 0;
      var q = [a[0] + u * dx, a[1] + u * dy], d = Math.hypot(q[0] - t[0], q[1] - t[1]);
      if (d <= bd) { bd = d; best = q; }
    }
  });
  return best;
}
