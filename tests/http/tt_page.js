// tt_page.js - what every browser test does on the table page: read its
// state, tap the table at a spot in inches or on a figure (choosing it in
// the chooser if one opens), read the cards; and wait until the page has
// handled the input given it (a loaded machine handles a tap later than a
// test gives it: what it opened is read only then).
'use strict';
const fs = require('fs');

async function state(page) {
  return page.evaluate(() => window.ttTable.state());
}

// The input the page has handled, seen by listeners on window (an event
// reaches them after the page's own handlers): pointer releases (up, and
// cancels) and wheel turns counted, the elements clicked listed.  Take a
// mark before giving input, then wait for the page to have handled it:
// what it opened is on the page then, however long a loaded machine took.
async function inputMark(page) {
  return page.evaluate(() => {
    if (!window.ttInputSeen) {
      const n = window.ttInputSeen = {up: 0, wheel: 0, clicked: []};
      window.addEventListener('pointerup', () => n.up++);
      window.addEventListener('pointercancel', () => n.up++);
      window.addEventListener('wheel', () => n.wheel++);
      window.addEventListener('click', (e) => n.clicked.push(e.target));
    }
    const n = window.ttInputSeen;
    return {up: n.up, wheel: n.wheel, clicked: n.clicked.length};
  });
}
async function handled(page, mark, kind, n = 1) {
  await page.waitForFunction((m, k, n) => window.ttInputSeen[k] >= m[k] + n, {}, mark, kind, n);
}

// A tap at client point (x, y) px: the finger's down and up sent at once.
// Puppeteer's tap sends the up only once the browser has answered the down;
// a starved browser can then count the finger as held (a long press: no
// click at all, and the test waits for ever).  The two go through one
// DevTools session per page, which keeps their order.
const sessions = new WeakMap();
async function tapPoint(page, x, y) {
  if (!sessions.has(page)) sessions.set(page, await page.target().createCDPSession());
  const cdp = sessions.get(page);
  const pts = [{x: Math.round(x), y: Math.round(y), radiusX: 0.5, radiusY: 0.5, force: 0.5, id: 0}];
  await Promise.all([cdp.send('Input.dispatchTouchEvent', {type: 'touchStart', touchPoints: pts}),
                     cdp.send('Input.dispatchTouchEvent', {type: 'touchEnd', touchPoints: []})]);
}

// Tap element el (in view first, as puppeteer's own tap does).
async function tapElement(page, el) {
  await el.evaluate((e) => e.scrollIntoView({block: 'nearest', inline: 'nearest'}));
  const p = await el.clickablePoint();
  await tapPoint(page, p.x, p.y);
}

// Tap the element sel once it is on the page.
async function tapSel(page, sel) {
  const el = await page.waitForSelector(sel);
  await tapElement(page, el);
  await el.dispose();
}

// Tap (touch) or click (mouse) the element sel, once the page has handled
// its click (a tap's click comes after its fingers lift, later on a loaded
// machine; a click on another element, from a tap before, does not count).
async function pressOn(page, sel, touch) {
  const m = await inputMark(page);
  const el = await page.waitForSelector(sel);
  await (touch ? tapElement(page, el) : el.click());
  await page.waitForFunction((el, m) => window.ttInputSeen.clicked.slice(m.clicked).some((t) => el.contains(t)),
                             {}, el, m);
  await el.dispose();
}
const tapOn = (page, sel) => pressOn(page, sel, true);
const clickOn = (page, sel) => pressOn(page, sel, false);

// Tap (touch) client point (x, y) px (the table), once the page has
// handled the finger lifting.
async function tapAt(page, x, y) {
  const m = await inputMark(page);
  await tapPoint(page, x, y);
  await handled(page, m, 'up');
}

// Tap the table at (x, y) inches.
async function tapTable(page, x, y) {
  const p = await page.evaluate((x, y) => {
    const svg = document.getElementById('table');
    const pt = svg.createSVGPoint();
    pt.x = x;
    pt.y = y;
    const s = pt.matrixTransform(svg.getScreenCTM());
    return [s.x, s.y];
  }, x, y);
  await tapAt(page, p[0], p[1]);
}

// Tap a figure; where others are within a fingertip's reach a chooser
// opens: choose it there.
async function tapFigure(page, id) {
  const f = (await state(page)).figures.find((f) => f.id === id);
  await tapTable(page, f.x, f.y);
  if (await page.$('#menu:not([hidden]) button.choice[data-id="' + id + '"]'))
    await tapOn(page, '#menu:not([hidden]) button.choice[data-id="' + id + '"]');
}

// The answers' cards' text, once there is one.
async function cardText(page) {
  await page.waitForSelector('#cards .card');
  return page.$eval('#cards', (e) => e.innerText);
}

// The RGBA bytes (an array) of the (2r+1)x(2r+1) square around pixel (x, y)
// of a PNG file (a projector image), read through the page's canvas.
async function pngSquare(page, file, x, y, r) {
  const data = 'data:image/png;base64,' + fs.readFileSync(file).toString('base64');
  return page.evaluate(async (data, x, y, r) => {
    const img = new Image();
    img.src = data;
    await img.decode();
    const c = document.createElement('canvas');
    c.width = img.width;
    c.height = img.height;
    const g = c.getContext('2d');
    g.drawImage(img, 0, 0);
    return Array.from(g.getImageData(Math.round(x - r), Math.round(y - r), 2 * r + 1, 2 * r + 1).data);
  }, data, x, y, r);
}

module.exports = {state, inputMark, handled, tapPoint, tapElement, tapSel, tapOn, clickOn, tapAt, tapTable, tapFigure, cardText, pngSquare};
