// browser_zoom.js - the live table page on a tracked 100-figure 72x48 table,
// in Debian's Chromium through puppeteer-core: on a phone (390x844, touch:
// taps, a pinch and a pan as CDP touch events) and on a laptop (1400x900,
// wheel zoom and a mouse drag).  Fat-finger picking in the most crowded
// spots at the default zoom and zoomed, the pick on the felt (the projector
// image's pixels), and a wall traced zoomed with a snapped corner.
// usage: node browser_zoom.js URL PROJECTOR_JSON OVERLAY_DIR OUT_DIR PLAN_JSON
// (PLAN_JSON: {"a", "b": figures whose line of sight the wall will cross,
// "corner": the barn's corner it starts at, "along", "across": unit vectors,
// "ring_in": the radius of the plain ring around a tag's mask)
// Prints one JSON line of what it saw; test_zoom_browser.py judges it.
'use strict';
const fs = require('fs');
const path = require('path');
const launch = require('./tt_launch');
const {state, cardText, pngSquare, inputMark, handled, tapPoint, tapOn, clickOn} = require('./tt_page');

const [url, projectorJson, overlayDir, outDir, planJson] = process.argv.slice(2);
const H = JSON.parse(fs.readFileSync(projectorJson, 'utf8')).table_to_projector;
const plan = JSON.parse(planJson);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function toProjector(x, y) {
  const w = H[2][0] * x + H[2][1] * y + H[2][2];
  return [(H[0][0] * x + H[0][1] * y + H[0][2]) / w, (H[1][0] * x + H[1][1] * y + H[1][2]) / w];
}

// Pixels of the projector image in the ring between r0 and r1 inches around
// (x, y) inches that are yellow (the pick's role colour), read by a canvas.
async function yellowAround(page, x, y, r0, r1) {
  const s = await state(page);
  const file = path.join(overlayDir, 'overlay_' + String(s.frame).padStart(5, '0') + '.png');
  const c = toProjector(x, y), k = toProjector(x + 1, y)[0] - c[0], p0 = r0 * k, p1 = r1 * k;
  const R = Math.ceil(p1) + 1, d = await pngSquare(page, file, c[0], c[1], R);
  let n = 0;
  for (let j = 0; j <= 2 * R; j++)
    for (let i = 0; i <= 2 * R; i++) {
      const r = Math.hypot(i - R, j - R), o = 4 * (j * (2 * R + 1) + i);
      if (r >= p0 && r <= p1 && d[o] > 180 && d[o + 1] > 180 && d[o + 2] < 120) n++;
    }
  return n;
}

// yellowAround once want(n) holds of it (the game draws the pick on the felt
// when it next draws), or as it is when the hang guard is over.
async function yellowWhen(page, x, y, r0, r1, want) {
  for (const end = Date.now() + launch.HANG_MS; ;) {
    const n = await yellowAround(page, x, y, r0, r1);
    if (want(n) || Date.now() > end) return n;
    await sleep(200);
  }
}

const screenOf = (page, x, y) => page.evaluate((x, y) => window.ttTable.view.toScreen(x, y), x, y);
const zoomOf = (page) => page.evaluate(() => window.ttTable.view.zoom());
// Fit, tapped or clicked, once the page has handled it (a loaded machine
// fires a tap's click later); the zoom read after it is what the test
// checks.
const fit = (p, mouse) => (mouse ? clickOn(p, '#fit') : tapOn(p, '#fit'));
// Until the page has drawn the view as it is now (a zoom redraws the labels
// at the next animation frame; #tt-state is written when it has).
const drawn = (page) => page.waitForFunction(() => {
  const t = document.getElementById('tt-state').textContent;
  return t !== '' && JSON.parse(t).zoom === window.ttTable.view.zoom();
});
const boxOf = (page) => page.evaluate(() => window.ttTable.view.box());
const pxPerInch = (page) => page.evaluate(() => window.ttTable.view.pxPerInch());

// What a tap opened (read once the page has handled it): the heading and
// the chooser's figures, if any.
async function opened(page) {
  return page.evaluate(() => ({
    hint: document.getElementById('hint').textContent,
    menu_open: !document.getElementById('menu').hidden,
    choices: [...document.querySelectorAll('#menu button.choice')].map((b) => b.getAttribute('data-id')),
  }));
}
async function closeMenu(page) {
  const sel = '#menu:not([hidden]) button[data-q="close"]';
  if (await page.$(sel)) await clickOn(page, sel);
}
// The figures the server lists as picked, once they are want (or the hang
// guard is over: then as they are).
async function waitPicked(page, want) {
  return page.waitForFunction(async (want) => {
    const p = (await (await fetch('api/state')).json()).picked;
    return JSON.stringify(p) === JSON.stringify(want) && p;
  }, {polling: 100}, want).then((h) => h.jsonValue(),
                                () => page.evaluate(async () => (await (await fetch('api/state')).json()).picked));
}

// The figures with the nearest neighbour closest, and each one's neighbour.
function crowded(figs, n) {
  return figs.map((f) => {
    let nn = null, d = Infinity;
    for (const g of figs)
      if (g !== f && Math.hypot(g.x - f.x, g.y - f.y) < d) { d = Math.hypot(g.x - f.x, g.y - f.y); nn = g; }
    return {f, nn, d};
  }).sort((a, b) => a.d - b.d).slice(0, n);
}
// A unit vector from the neighbour to the figure (the side away from it).
function away(c) {
  const dx = c.f.x - c.nn.x, dy = c.f.y - c.nn.y, L = Math.hypot(dx, dy) || 1;
  return [dx / L, dy / L];
}

launch.run(async (browser, result) => {
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.setViewport({width: 390, height: 844, deviceScaleFactor: 2, isMobile: true, hasTouch: true});
  await page.goto(url, {waitUntil: 'load'});
  await page.waitForFunction(() => window.ttTable.state() && window.ttTable.state().camera === 'ended' &&
                             document.querySelectorAll('g.fig').length >= 95);
  await drawn(page);
  const s0 = await state(page);
  const figs = s0.figures.filter((f) => f.id && f.state !== 'lost');
  result.figures = figs.length;
  const cdp = await page.target().createCDPSession();
  const touch = (type, pts) => cdp.send('Input.dispatchTouchEvent',
    {type, touchPoints: pts.map((p, i) => ({x: p[0], y: p[1], id: i, radiusX: 10, radiusY: 10}))});
  // The fingers stop before they lift, as a player's do: lifted while still
  // moving, Chromium flings the view on, and the next tap only stops the
  // fling (it is no tap: Fit after a pan went unclicked).  Its velocity
  // tracker counts fingers still for 40 ms as stopped; a busy machine only
  // holds them longer.
  const hold = () => sleep(150);
  // each returns once the page has handled the fingers lifting
  const tap = async (x, y) => {
    const m = await inputMark(page);
    await tapPoint(page, x, y);
    await handled(page, m, 'up');
  };
  const pinch = async (cx, cy, d0, d1) => {
    const m = await inputMark(page);
    await touch('touchStart', [[cx - d0 / 2, cy], [cx + d0 / 2, cy]]);
    for (let i = 1; i <= 12; i++) {
      const d = d0 + (d1 - d0) * i / 12;
      await touch('touchMove', [[cx - d / 2, cy], [cx + d / 2, cy]]);
    }
    await hold();
    await touch('touchEnd', []);
    await handled(page, m, 'up', 2);
  };
  const drag = async (x, y, dx, dy) => {
    const m = await inputMark(page);
    await touch('touchStart', [[x, y]]);
    for (let i = 1; i <= 10; i++) await touch('touchMove', [[x + dx * i / 10, y + dy * i / 10]]);
    await hold();
    await touch('touchEnd', []);
    await handled(page, m, 'up');
  };

  // at fit: labels readable (a fixed size on screen) and never on top of each other
  const labels = () => page.evaluate(() => {
    const vis = [...document.querySelectorAll('.fig-label')].filter((t) => t.getAttribute('visibility') !== 'hidden')
      .map((t) => t.getBoundingClientRect());
    let overlaps = 0;
    for (let i = 0; i < vis.length; i++)
      for (let j = i + 1; j < vis.length; j++) {
        const a = vis[i], b = vis[j];
        if (a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom) overlaps++;
      }
    return {shown: vis.length, overlaps, heights: vis.map((b) => b.height)};
  });
  result.labels_fit = await labels();
  result.px_per_inch_fit = await pxPerInch(page);
  await page.screenshot({path: path.join(outDir, 'zoom-phone-fit.png')});

  // the most crowded spots, default zoom: a tap 4 px off each figure
  const crowd = crowded(figs, 10);
  result.crowded_gaps_in = crowd.map((c) => Math.round(c.d * 100) / 100);
  result.fit_taps = [];
  for (const c of crowd) {
    const p = await screenOf(page, c.f.x, c.f.y), u = away(c);
    await tap(p[0] + 4 * u[0], p[1] + 4 * u[1]);
    const o = await opened(page);
    const direct = o.menu_open && o.choices.length === 0 && o.hint.startsWith(c.f.id + ' \u00b7');
    const listed = o.choices.includes(c.f.id);
    let chosen = false;
    if (listed && !result.fit_taps.some((t) => t.listed))
      await page.screenshot({path: path.join(outDir, 'zoom-phone-chooser.png')});
    if (listed) {
      await clickOn(page, '#menu button.choice[data-id="' + c.f.id + '"]');
      chosen = (await opened(page)).hint.startsWith(c.f.id + ' \u00b7');
    }
    result.fit_taps.push({id: c.f.id, direct, listed, chosen, nearest_first: o.choices[0] === c.f.id,
                          choices: o.choices.length});
    await closeMenu(page);
  }

  // every figure, default zoom: a tap 4 px off it toward its nearest
  // neighbour (the harder side): named directly or in the chooser?
  result.fit_all = {taps: 0, named: 0, direct: 0, chooser_sizes: []};
  for (const c of crowded(figs, figs.length)) {
    const p = await screenOf(page, c.f.x, c.f.y), u = away(c);
    await tap(p[0] - 4 * u[0], p[1] - 4 * u[1]);
    const o = await opened(page);
    const direct = o.menu_open && o.choices.length === 0 && o.hint.startsWith(c.f.id + ' \u00b7');
    result.fit_all.taps++;
    result.fit_all.named += direct || o.choices.includes(c.f.id);
    result.fit_all.direct += direct;
    if (o.choices.length) result.fit_all.chooser_sizes.push(o.choices.length);
    await closeMenu(page);
  }

  // pinch to 8x about the most crowded figure: it stays under the fingers
  const c0 = crowd[0];
  let p0 = await screenOf(page, c0.f.x, c0.f.y);
  const ring = [plan.ring_in + 0.07, plan.ring_in + 0.47];
  // (the taps above picked figures, c0 among them, and withdrew them: the felt unrings them when it next draws)
  const yellowBefore = await yellowWhen(page, c0.f.x, c0.f.y, ring[0], ring[1], (n) => n === 0);
  await pinch(p0[0], p0[1], 40, 320);
  result.pinch_zoom = await zoomOf(page);
  const p1 = await screenOf(page, c0.f.x, c0.f.y);
  result.pinch_drift_px = Math.hypot(p1[0] - p0[0], p1[1] - p0[1]);
  await drawn(page);
  result.labels_zoomed = await labels();

  // zoomed: a tap 8 px beside each crowded figure's disc (on screen)
  // opens its menu; the server lists it as picked; the felt rings it
  result.zoom_taps = [];
  const k = await pxPerInch(page);
  const rect = await page.$eval('#table', (e) => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; });
  for (const c of crowd) {
    await page.evaluate((x, y) => window.ttTable.view.show(x, y, 8), c.f.x, c.f.y);
    await drawn(page);
    const p = await screenOf(page, c.f.x, c.f.y), u = away(c), off = 0.55 * k + 8;
    const at = [p[0] + off * u[0], p[1] + off * u[1]];
    if (at[0] < rect[0] || at[0] > rect[2] || at[1] < rect[1] || at[1] > rect[3]) continue;
    await tap(at[0], at[1]);
    const o = await opened(page);
    const ok = o.menu_open && o.choices.length === 0 && o.hint.startsWith(c.f.id + ' \u00b7');
    const picked = await waitPicked(page, [c.f.id]);
    result.zoom_taps.push({id: c.f.id, ok, picked});
    if (result.zoom_taps.length === 1) {
      result.pick_ring = {before: yellowBefore, after: await yellowWhen(page, c0.f.x, c0.f.y, ring[0], ring[1], (n) => n > 60)};
      await page.screenshot({path: path.join(outDir, 'zoom-phone-menu.png')});
    }
    await closeMenu(page);
  }
  result.picked_after_close = await waitPicked(page, []);
  result.pick_ring_after_close = await yellowWhen(page, c0.f.x, c0.f.y, ring[0], ring[1], (n) => n === 0);

  // pan with one finger: the table follows it (from the middle: room all round)
  await page.evaluate(() => window.ttTable.view.show(36, 24, 8));
  const b0 = await boxOf(page), kk = await pxPerInch(page);
  await drag((rect[0] + rect[2]) / 2, (rect[1] + rect[3]) / 2, 80, 40);
  const b1 = await boxOf(page);
  result.pan_moved_px = [(b0[0] - b1[0]) * kk, (b0[1] - b1[1]) * kk];
  result.pan_menu_open = !(await page.$eval('#menu', (m) => m.hidden));
  await fit(page);
  result.fit_zoom = await zoomOf(page);

  // set up: a wall traced zoomed in, its first corner tapped 5 px off the
  // barn's corner (it snaps there), saved; then a line of sight across it
  await tapOn(page, '#tab-setup');
  await page.waitForFunction(() => document.querySelector('#table image') !== null);
  await page.waitForFunction(() => document.querySelectorAll('#terrain-list li').length > 0);
  await page.select('#kind', 'building');
  const [cx, cy] = plan.corner, [ax, ay] = plan.along, [nx, ny] = plan.across;
  const mid = [cx + 0.5 * ax - 2 * nx, cy + 0.5 * ay - 2 * ny];
  let pm = await screenOf(page, mid[0], mid[1]);
  await pinch(pm[0], pm[1], 40, 240);
  result.setup_zoom = await zoomOf(page);
  const corners = [[cx, cy], [cx + ax, cy + ay], [cx + ax - 4 * nx, cy + ay - 4 * ny], [cx - 4 * nx, cy - 4 * ny]];
  for (let i = 0; i < corners.length; i++) {
    const p = await screenOf(page, corners[i][0], corners[i][1]);
    await tap(p[0] + (i === 0 ? 5 : 0), p[1] + (i === 0 ? -3 : 0));
  }
  // the third corner dragged away and back: a placed corner can be moved
  const q = await screenOf(page, corners[2][0], corners[2][1]);
  await drag(q[0], q[1], 30, 0);
  const traceAfterDrag = await page.evaluate(() => window.ttTable.trace());
  await drag(q[0] + 30, q[1], -30, 0);
  result.trace = await page.evaluate(() => window.ttTable.trace());
  result.drag_moved_in = traceAfterDrag[2][0] - result.trace[2][0];
  await page.screenshot({path: path.join(outDir, 'zoom-phone-setup.png')});
  await tapOn(page, '#finish');
  await tapOn(page, '#save');
  await page.waitForFunction(() => /Saved|Not saved/.test(document.getElementById('setup-msg').textContent));
  result.saved = await page.$eval('#setup-msg', (e) => e.textContent);
  await page.waitForFunction(() => window.ttTable.state().terrain.some((t) => t.id === 'building-1'));
  result.wall = (await state(page)).terrain.find((t) => t.id === 'building-1');

  // play: the line of sight from a to b, a found by the search box
  await tapOn(page, '#tab-play');
  await fit(page);
  await page.type('#find', plan.a);
  await page.keyboard.press('Enter');
  await page.waitForSelector('#menu:not([hidden]) button[data-q="los"]');
  result.search_hint = await page.$eval('#hint', (e) => e.textContent);
  result.search_zoom = await zoomOf(page);
  await page.screenshot({path: path.join(outDir, 'zoom-phone-search.png')});
  await tapOn(page, '#menu button[data-q="los"]');
  await fit(page);
  const fb = (await state(page)).figures.find((f) => f.id === plan.b);
  const pb = await screenOf(page, fb.x, fb.y);
  await tap(pb[0], pb[1]);
  const choice = '#menu:not([hidden]) button.choice[data-id="' + plan.b + '"]';
  if (await page.$(choice)) await clickOn(page, choice);
  result.los_card = await cardText(page);
  await page.screenshot({path: path.join(outDir, 'zoom-phone-blocked.png')});
  result.phone_errors = errors.slice();

  // a laptop: wheel zoom about the pointer, drag to pan, click beside a figure
  const lap = await browser.newPage();
  lap.on('pageerror', (e) => errors.push(String(e)));
  await lap.setViewport({width: 1400, height: 900, deviceScaleFactor: 1});
  await lap.goto(url, {waitUntil: 'load'});
  await lap.waitForFunction(() => window.ttTable.state() && document.querySelectorAll('g.fig').length >= 95);
  await drawn(lap);
  // zoomed about the crowded figure nearest the middle: the view is not
  // held back by the table's edge
  const c1 = crowded(figs, 20).sort((a, b) => Math.hypot(a.f.x - 36, a.f.y - 24) - Math.hypot(b.f.x - 36, b.f.y - 24))[0];
  // (the mouse is at whole pixels: the table point under that pixel stays under it)
  const w0 = (await screenOf(lap, c1.f.x, c1.f.y)).map(Math.round);
  const t0 = await lap.evaluate((x, y) => window.ttTable.view.toTable(x, y), w0[0], w0[1]);
  await lap.mouse.move(w0[0], w0[1]);
  for (let i = 0; i < 4; i++) {
    const m = await inputMark(lap);
    await lap.mouse.wheel({deltaY: -250});
    await handled(lap, m, 'wheel');
  }
  result.wheel_zoom = await zoomOf(lap);
  const w1 = await screenOf(lap, t0[0], t0[1]);
  result.wheel_drift_px = Math.hypot(w1[0] - w0[0], w1[1] - w0[1]);
  await lap.evaluate(() => window.ttTable.view.show(36, 24, 1)); /* the middle: room to pan all round */
  const lb0 = await boxOf(lap), lk = await pxPerInch(lap), m0 = await screenOf(lap, 36, 24);
  const md = await inputMark(lap);
  await lap.mouse.move(m0[0], m0[1]);
  await lap.mouse.down();
  for (let i = 1; i <= 10; i++) await lap.mouse.move(m0[0] - 12 * i, m0[1] - 6 * i);
  await lap.mouse.up();
  await handled(lap, md, 'up');
  const lb1 = await boxOf(lap);
  result.mouse_pan_px = [(lb0[0] - lb1[0]) * lk, (lb0[1] - lb1[1]) * lk];
  result.mouse_pan_menu_open = !(await lap.$eval('#menu', (m) => m.hidden));
  await lap.evaluate((x, y) => window.ttTable.view.show(x, y, 1), c1.f.x, c1.f.y);
  const w2 = await screenOf(lap, c1.f.x, c1.f.y), u1 = away(c1), off1 = 0.55 * (await pxPerInch(lap)) + 8;
  const mc = await inputMark(lap);
  await lap.mouse.click(w2[0] + off1 * u1[0], w2[1] + off1 * u1[1]);
  await handled(lap, mc, 'up');
  const lo = await opened(lap);
  result.laptop_click = {id: c1.f.id, hint: lo.hint, choices: lo.choices};
  result.laptop_picked = await waitPicked(lap, [c1.f.id]);
  await lap.screenshot({path: path.join(outDir, 'zoom-laptop.png')});
  await fit(lap, true);
  result.laptop_fit_zoom = await zoomOf(lap);
  result.page_errors = errors;
});
