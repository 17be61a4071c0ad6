// tt_page.js - what every browser test does on the table page: read its
// state, tap the table at a spot in inches or on a figure (choosing it in
// the chooser if one opens), read the cards.
'use strict';
const fs = require('fs');

async function state(page) {
  return page.evaluate(() => window.ttTable.state());
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
  await page.touchscreen.tap(p[0], p[1]);
}

// Tap a figure; where others are within a fingertip's reach a chooser
// opens: choose it there.
async function tapFigure(page, id) {
  const f = (await state(page)).figures.find((f) => f.id === id);
  await tapTable(page, f.x, f.y);
  const choice = await page.$('#menu:not([hidden]) button.choice[data-id="' + id + '"]');
  if (choice) await choice.tap();
}

async function cardText(page) {
  await page.waitForSelector('.card', {timeout: 10000});
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

module.exports = {state, tapTable, tapFigure, cardText, pngSquare};
