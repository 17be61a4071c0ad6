// browser_ammo.js - a Fixed Bay'net howitzer's shot on the live table page in
// Debian's Chromium at phone size (390x844, touch): the dice form offers
// shot or shell, and the answer is for the one chosen.
// usage: node browser_ammo.js URL AIM_X AIM_Y OUT_DIR
// Prints one JSON line of what it saw; test_ammo_browser.py judges it.
'use strict';
const path = require('path');
const launch = require('./tt_launch');
const {state, tapOn, tapTable, tapFigure, cardText} = require('./tt_page');

const [url, aimX, aimY, outDir] = process.argv.slice(2);
const result = {};

(async () => {
  const browser = await launch();
  const errors = [];
  try {
    const page = await browser.newPage();
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.setViewport({width: 390, height: 844, deviceScaleFactor: 2, isMobile: true, hasTouch: true});
    await page.goto(url, {waitUntil: 'load'});
    await page.waitForFunction(() => window.ttTable.state() && window.ttTable.state().camera === 'ended' &&
                               document.querySelectorAll('g.fig').length > 5);
    result.mortar1 = (await state(page)).figures.find((f) => f.id === 'mortar1');
    await tapFigure(page, 'mortar1');
    await page.waitForSelector('#menu:not([hidden]) button[data-q="deviate"]');
    await tapOn(page, '#menu button[data-q="deviate"]');
    await tapTable(page, +aimX, +aimY);
    await page.waitForSelector('#menu:not([hidden]) input[name="clock"]');
    result.ammo_options = await page.$$eval('select[name="ammo"] option', (o) => o.map((x) => x.value));
    result.ammo_first_chosen = await page.$eval('select[name="ammo"]', (s) => s.value).catch(() => null);
    await page.select('select[name="ammo"]', 'shot');
    await page.type('input[name="clock"]', '12');
    await page.type('input[name="distance"]', '2');
    await tapOn(page, '#menu button[data-q="deviate-go"]');
    await page.waitForFunction(() => window.ttTable.state().shown.some((s) => s.query.q === 'deviate'));
    result.card = await cardText(page);
    result.shown = (await state(page)).shown.find((s) => s.query.q === 'deviate');
    await new Promise((r) => setTimeout(r, 500));
    await page.screenshot({path: path.join(outDir, 'phone-ammo.png')});
  } catch (e) {
    result.error = launch.errorText(e);
  } finally {
    result.page_errors = errors;
    await browser.close();
  }
  console.log(JSON.stringify(result));
})();
