// browser_slope.js - a sloped hill set up on the live table page in Debian's
// Chromium at phone size (390x844, touch), as issue 29 asks: a hill traced
// on the table picture gets a slope field (as does the house, a building;
// not the walls, lines, nor the rubble, which does not raise); a negative
// slope and one in millimetres are refused with what to give, and Save
// refuses while one is wrong; 1.5" is drawn (where the sides meet the felt)
// and saved; a laptop's view of it.
// usage: node browser_slope.js URL OUT_DIR
// Prints one JSON line of what it saw; test_slope_browser.py judges it.
'use strict';
const path = require('path');
const launch = require('./tt_launch');
const {state, tapOn, tapTable} = require('./tt_page');

const [url, outDir] = process.argv.slice(2);
const TOP = [[27, 20], [30, 20], [30, 22], [27, 22]];
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

launch.run(async (browser, result) => {
  const errors = [];
  const page = await browser.newPage();
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.setViewport({width: 390, height: 844, deviceScaleFactor: 2, isMobile: true, hasTouch: true});
  await page.goto(url, {waitUntil: 'load'});
  await page.waitForFunction(() => window.ttTable.state() && document.querySelectorAll('g.fig').length > 5 &&
                             [...document.querySelectorAll('#kind option')].some((o) => o.value === 'hill'));
  await tapOn(page, '#tab-setup');
  await page.waitForFunction(() => document.querySelectorAll('#terrain-list li').length >= 4);
  await page.select('#kind', 'hill');
  for (const [x, y] of TOP) await tapTable(page, x, y);
  await tapOn(page, '#finish');
  await page.waitForFunction(() => [...document.querySelectorAll('#terrain-list li span')]
    .some((s) => s.textContent === 'hill-1'));
  // which pieces offer a slope
  result.sloped = await page.$$eval('#terrain-list li', (lis) => lis.filter((li) => li.querySelector('input[name="slope_in"]'))
    .map((li) => li.querySelector('span').textContent));
  const field = '#terrain-list li:nth-child(' + (await page.$$eval('#terrain-list li span',
    (s) => s.map((x) => x.textContent).indexOf('hill-1') + 1)) + ') input[name="slope_in"]';
  const typeSlope = async (v) => {
    await page.$eval(field, (i) => { i.value = ''; });
    await page.type(field, v);
    await page.$eval(field, (i) => i.blur()); /* 'change', handled before blur() returns */
    return {msg: await page.$eval('#setup-msg', (e) => e.textContent),
            invalid: await page.$eval(field, (i) => i.getAttribute('aria-invalid'))};
  };
  result.negative = await typeSlope('-2');
  await tapOn(page, '#save'); /* refused at once, on the page */
  result.save_refused = await page.$eval('#setup-msg', (e) => e.textContent);
  await page.screenshot({path: path.join(outDir, 'phone-slope-refused.png')});
  result.millimetres = await typeSlope('100');
  result.good = await typeSlope('1.5');
  result.foot = await page.$$eval('#terrain polygon.slope', (ps) => ps.map((p) => p.getAttribute('points')));
  await page.screenshot({path: path.join(outDir, 'phone-slope.png')});
  await tapOn(page, '#save');
  await page.waitForFunction(() => /Saved|Not saved/.test(document.getElementById('setup-msg').textContent));
  result.saved = await page.$eval('#setup-msg', (e) => e.textContent);
  await page.waitForFunction(() => window.ttTable.state().terrain.some((t) => t.id === 'hill-1'));
  result.served = (await state(page)).terrain.find((t) => t.id === 'hill-1');
  await page.setViewport({width: 1400, height: 900, deviceScaleFactor: 1}); /* no longer a phone: the page reloads */
  await page.waitForFunction(() => window.ttTable && window.ttTable.state() && document.querySelectorAll('g.fig').length > 5 &&
                             window.ttTable.state().terrain.some((t) => t.id === 'hill-1'));
  await sleep(500); /* the screenshot settles */
  await page.screenshot({path: path.join(outDir, 'laptop-slope.png')});
  result.page_errors = errors;
});
