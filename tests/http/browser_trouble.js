// browser_trouble.js - what a player sees when a request fails, on the live
// table page in Debian's Chromium, on a phone (390x844, touch) and a laptop
// (1400x900, mouse) at once:
//  1. the ruleset's profile answered 503 twice at first: a card says the
//     page could not read it and tries again; it goes when that works, and
//     the menus then follow the ruleset (a gun offers grape); the same for
//     the table's picture on the Set up tab, refused once;
//  2. a question answered 500 (an error page, not the table's JSON): a card
//     says it was not asked and why, stays while the game goes on, and goes
//     when dismissed;
//  3. the server going away (SIGINT to it): a card says the table is lost
//     and the page reconnects; a question asked then says the table did not
//     answer.
// The 500 and 503 are the browser's own answers (request interception);
// the server going away is the real one stopping.
// usage: node browser_trouble.js URL SERVER_PID OUT_DIR
// Prints one JSON line of what it saw; test_trouble_browser.py judges it.
'use strict';
const path = require('path');
const launch = require('./tt_launch');
const {state, inputMark, handled, tapOn, clickOn, tapAt} = require('./tt_page');

const [url, serverPid, outDir] = process.argv.slice(2);

// The trouble cards shown: {key: {big, small, retrying, visible}}.
async function troubles(page) {
  return page.$$eval('#trouble .card', (cs) => Object.fromEntries(cs.map((c) => [c.getAttribute('data-trouble'), {
    big: c.querySelector('.big').textContent, small: c.querySelector('.small').textContent,
    retrying: c.classList.contains('retrying'), visible: c.getBoundingClientRect().height > 20,
    in_view: c.getBoundingClientRect().bottom <= window.innerHeight}])));
}

// Tap (touch) or click (mouse) the table at (x, y) inches, or a button;
// each returns once the page has handled it.
async function press(page, touch, x, y) {
  const p = await page.evaluate((x, y) => window.ttTable.view.toScreen(x, y), x, y);
  if (touch) return tapAt(page, p[0], p[1]);
  const m = await inputMark(page);
  await page.mouse.click(p[0], p[1]);
  await handled(page, m, 'up');
}
async function button(page, touch, sel) {
  await (touch ? tapOn(page, sel) : clickOn(page, sel));
}
async function pressFigure(page, touch, id) {
  const f = (await state(page)).figures.find((f) => f.id === id);
  await press(page, touch, f.x, f.y);
  if (await page.$('#menu:not([hidden]) button.choice[data-id="' + id + '"]'))
    await button(page, touch, '#menu:not([hidden]) button.choice[data-id="' + id + '"]');
}
// Ask q (a menu item) of figure from about figure to.
async function askAbout(page, touch, from, q, to) {
  await pressFigure(page, touch, from);
  await page.waitForSelector('#menu:not([hidden]) button[data-q="' + q + '"]');
  await button(page, touch, '#menu button[data-q="' + q + '"]');
  await pressFigure(page, touch, to);
}

async function open(browser, name, viewport, errors) {
  const page = await browser.newPage();
  page.on('pageerror', (e) => errors.push(name + ': ' + String(e)));
  await page.setViewport(viewport);
  const fails = {rules: 0, query: 0, picture: 0};
  await page.setRequestInterception(true);
  page.on('request', (req) => {
    const u = new URL(req.url());
    if (u.pathname === '/api/rules' && fails.rules < 2) {
      fails.rules++;
      return req.respond({status: 503, contentType: 'application/json',
                          body: JSON.stringify({error: 'the table is busy (a test\'s answer)'})});
    }
    if (u.pathname === '/api/table.png' && fails.picture < 1) {
      fails.picture++;
      return req.respond({status: 500, contentType: 'application/json',
                          body: JSON.stringify({error: 'the camera has no frame yet (a test\'s answer)'})});
    }
    if (u.pathname === '/api/query' && req.method() === 'POST' && fails.query < 1) {
      fails.query++;
      return req.respond({status: 500, contentType: 'text/html', body: '<h1>Internal Server Error</h1>'});
    }
    return req.continue();
  });
  await page.goto(url, {waitUntil: 'load'});
  return {page, fails};
}

launch.run(async (browser, result) => {
  const errors = [], pages = {};
  const sizes = {phone: {width: 390, height: 844, deviceScaleFactor: 2, isMobile: true, hasTouch: true},
                 laptop: {width: 1400, height: 900, deviceScaleFactor: 1}};
  for (const name of ['phone', 'laptop']) {
    const {page, fails} = pages[name] = await open(browser, name, sizes[name], errors);
    const touch = name === 'phone', r = result[name] = {};
    // 1. the profile could not be read: a card while the page tries again
    await page.waitForSelector('#trouble .card[data-trouble="rules"]');
    r.rules_card = (await troubles(page)).rules;
    await page.screenshot({path: path.join(outDir, name + '-trouble-retrying.png')});
    await page.waitForFunction(() => window.ttTable.state() && document.querySelectorAll('g.fig').length > 5);
    await page.waitForFunction(() => !document.querySelector('#trouble .card[data-trouble="rules"]'));
    r.rules_failed = fails.rules;
    await pressFigure(page, touch, 'gun1');
    await page.waitForSelector('#menu:not([hidden]) button[data-q="close"]');
    r.gun_menu = await page.$$eval('#menu button', (b) => b.map((x) => x.getAttribute('data-q')));
    await button(page, touch, '#menu button[data-q="close"]');

    // the table's picture refused once: a card, then the picture
    await button(page, touch, '#tab-setup');
    await page.waitForSelector('#trouble .card[data-trouble="photo"]');
    r.photo_card = (await troubles(page)).photo;
    await page.waitForFunction(() => !document.querySelector('#trouble .card[data-trouble="photo"]') &&
                               document.querySelector('#table image'));
    r.picture_failed = fails.picture;
    await button(page, touch, '#tab-play');

    // 2. a question answered 500 (on a table cleared of answers)
    await button(page, touch, '#clear');
    await page.waitForFunction(() => window.ttTable.state().shown.length === 0);
    await askAbout(page, touch, 'gren1', 'fire', 'fus1');
    await page.waitForSelector('#trouble .card[data-trouble="ask"]');
    r.frame_at_500 = (await state(page)).frame;
    /* the game goes on (the page has drawn a later frame; unless it had ended): the card stays */
    await page.waitForFunction((f) => window.ttTable.state().frame > f || window.ttTable.state().camera === 'ended',
                               {}, r.frame_at_500);
    r.ask_card = (await troubles(page)).ask;
    r.shown_after_500 = (await state(page)).shown.map((s) => s.query);
    r.query_failed = fails.query;
    await page.screenshot({path: path.join(outDir, name + '-trouble-500.png')});
    await button(page, touch, '#trouble .card[data-trouble="ask"] button');
    r.ask_card_dismissed = !(await page.$('#trouble .card[data-trouble="ask"]'));
    // asked again, it works (only the first was refused)
    await askAbout(page, touch, 'gren1', 'fire', 'fus1');
    await page.waitForFunction(() => window.ttTable.state().shown.some((s) => s.query.q === 'fire'));
    r.asked_again = true;
    r.troubles_before_gone = await troubles(page);
  }

  // 3. the server goes away
  process.kill(+serverPid, 'SIGINT');
  for (const name of ['phone', 'laptop']) {
    const page = pages[name].page, touch = name === 'phone', r = result[name];
    await page.bringToFront(); /* a page behind another takes no touches */
    await page.waitForSelector('#trouble .card[data-trouble="live"]');
    r.live_card = (await troubles(page)).live;
    r.status = await page.$eval('#status', (e) => e.textContent);
    await askAbout(page, touch, 'gren1', 'los', 'fus1');
    await page.waitForSelector('#trouble .card[data-trouble="ask"]');
    r.gone = await troubles(page);
    r.status_after = await page.$eval('#status', (e) => e.textContent);
    await page.screenshot({path: path.join(outDir, name + '-trouble-gone.png')});
  }
  result.page_errors = errors;
});
