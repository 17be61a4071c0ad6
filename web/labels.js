/* labels.js - the names on a drawn table kept apart: answers' labels,
 * figure names and terrain names moved off each other and off the figures
 * (declutter), on every page that draws the table.  An ES module with no
 * imports (the replay inlines it). */

/* Keep labels apart: answers' labels first, then figure names, then
 * terrain names, each moved to the first nearby spot where its box meets
 * no label already placed and no figure (its own figure's name only has to
 * miss the others).  A terrain name with no room left is hidden; any other
 * label takes the spot it overlaps least.  Call after drawing a frame.
 * opts.hide (a page that zooms, its labels a fixed size on screen): a
 * figure's name with no room is hidden too, and so is any label outside
 * the picture or cut by its edge; the spots tried are as far apart as the
 * label is tall. */
export function declutter(svg, opts) {
  var hide = !!(opts && opts.hide), view = hide ? svg.getBoundingClientRect() : null;
  var ctm = svg.getScreenCTM();
  if (!ctm) return;
  var k = ctm.a; /* screen pixels per inch */
  var discs = [], placed = [];
  Array.prototype.forEach.call(svg.querySelectorAll('g.fig'), function (g) {
    if (g.getAttribute('display') === 'none') return;
    var c = g.querySelector('circle');
    if (c) discs.push({g: g, b: c.getBoundingClientRect()});
  });
  function hits(b, a) {
    return b.left < a.right && a.left < b.right && b.top < a.bottom && a.top < b.bottom;
  }
  function overlap(b, own) {
    var n = 0;
    placed.forEach(function (a) { if (hits(b, a)) n += 2; });
    discs.forEach(function (d) { if (d.g !== own && hits(b, d.b)) n++; });
    return n;
  }
  /* offsets in inches: where it is drawn, then around it (above and
   * below first: labels are wide), further out each ring */
  var OFFS = [[0, 0]];
  [1, 2, 3, 4.5].forEach(function (r) {
    [[0, -1], [0, 1], [1.6, -0.5], [-1.6, -0.5], [1.6, 0.5], [-1.6, 0.5], [2.2, 0], [-2.2, 0]].forEach(function (d) {
      OFFS.push([d[0] * r, d[1] * r]);
    });
  });
  /* every label reset first, then every box read, then the places
   * written: reading a box after each change would lay the picture out
   * again for each label (a second for 100 figures on a phone) */
  var labels = [];
  ['ov-label', 'fig-label', 'terrain-label'].forEach(function (cls) {
    Array.prototype.forEach.call(svg.getElementsByClassName(cls), function (t) {
      t.removeAttribute('transform');
      t.removeAttribute('visibility');
      if (t.textContent && !t.closest('[display="none"]')) labels.push({t: t, cls: cls});
    });
  });
  labels.forEach(function (l) { l.b0 = l.t.getBoundingClientRect(); });
  labels.forEach(function (l) {
    var b0 = l.b0, own = l.cls === 'fig-label' ? l.t.parentNode : null;
    if (hide && !hits(b0, view)) {
      l.hidden = true;
      return;
    }
    var pad = 1, best = null;
    l.step = hide ? Math.max(1, b0.height / k) : 1;
    for (var i = 0; i < OFFS.length; i++) {
      var dx = OFFS[i][0] * k * l.step, dy = OFFS[i][1] * k * l.step;
      var b = {left: b0.left + dx - pad, right: b0.right + dx + pad, top: b0.top + dy - pad,
               bottom: b0.bottom + dy + pad, i: i};
      b.n = overlap(b, own);
      if (hide && (b.left < view.left || b.right > view.right || b.top < view.top || b.bottom > view.bottom))
        b.n += 3; /* cut by the picture's edge */
      if (!best || b.n < best.n) best = b;
      if (!b.n) break;
    }
    if (best.n && (l.cls === 'terrain-label' || (hide && l.cls === 'fig-label'))) {
      l.hidden = true;
      return;
    }
    l.at = best.i;
    placed.push(best);
  });
  labels.forEach(function (l) {
    if (l.hidden) l.t.setAttribute('visibility', 'hidden');
    else if (l.at) l.t.setAttribute('transform', 'translate(' + OFFS[l.at][0] * l.step + ' ' + OFFS[l.at][1] * l.step + ')');
  });
}
