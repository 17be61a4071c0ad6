// browser_referee.js - the referee on the live table page, in Debian's
// Chromium, on a phone (390x844, touch) and a laptop (1400x900, mouse):
//  1. the sample game played as The Thin Red Line with the British moving
//     from frame 0 (server A, --phases): the turn bar says "Turn 1 ·
//     British · movement" and this phase's moves are listed, the over-move
//     first (both sizes);
//  2. Next on a page without the key: a card says the key is needed, with
//     the server's own 403 answer, and the game stays where it was;
//  3. Next with the key: the French move, the fusilier taken off is a
//     casualty card, the list is empty; Next to the end of the turn; the
//     page asks who won the initiative roll and the French start turn 2;
//     a phase picked directly; a phase the ruleset does not know (a stale
//     choice) refused with a card naming the book's phases;
//  4. server B (no --phases): no phase, "Start the game", who won the
//     initiative, then turn 1 as chosen.
// usage: node browser_referee.js URL_A URL_B OUT_DIR
// Prints one JSON line of what it saw; test_referee_browser.py judges it.
'use strict';
const path = require('path');
const launch = require('./tt_launch');
const {state, tapOn, clickOn} = require('./tt_page');

const [urlA, urlB, outDir] = process.argv.slice(2);
const PHONE = {width: 390, height: 844, deviceScaleFactor: 1, isMobile: true, hasTouch: true};
const LAPTOP = {width: 1400, height: 900, deviceScaleFactor: 1};
/* a wait for the server's next state (up to the hang guard, every page's default) */
const LONG = {polling: 200};

async function open(browser, url, viewport, name, errors) {
  const page = await browser.newPage();
  page.on('pageerror', (e) => errors.push(name + ': ' + String(e)));
  await page.setViewport(viewport);
  await page.goto(url);
  return page;
}

// What the page shows of the referee: the bar, its buttons, what it asks,
// the checks in the order listed, the calls' cards, the trouble cards.
async function seen(page) {
  return page.evaluate(() => {
    const vis = (id) => { const e = document.getElementById(id); return !!e && !e.hidden && e.offsetParent !== null; };
    const txt = (e) => (e ? e.textContent : null);
    return {
      bar: vis('turnbar'), text: txt(document.getElementById('turn-text')),
      next: vis('turn-next'), start: vis('turn-start'), pick: vis('turn-pick'),
      ask: vis('turn-ask') ? document.getElementById('turn-ask').innerText : null,
      ask_sides: Array.from(document.querySelectorAll('#turn-ask button[data-side]')).map((b) => b.textContent),
      checks: Array.from(document.querySelectorAll('#checks li')).map((li) => ({
        id: li.getAttribute('data-id'), cls: li.className, big: txt(li.querySelector('.big'))})),
      calls: Array.from(document.querySelectorAll('#referee .card.call')).map((c) => ({
        unit: c.getAttribute('data-unit'), event: c.getAttribute('data-event'), big: txt(c.querySelector('.big')),
        small: txt(c.querySelector('.small'))})),
      troubles: Array.from(document.querySelectorAll('#trouble .card')).map((c) => ({
        key: c.getAttribute('data-trouble'), big: txt(c.querySelector('.big')), small: txt(c.querySelector('.small')),
        in_view: c.getBoundingClientRect().bottom <= window.innerHeight})),
      over_moves: Array.from(document.querySelectorAll('#overlays [data-role="blocked"]'))
        .filter((e) => e.getAttribute('stroke-dasharray') !== 'none' && (e.tagName === 'line' || e.tagName === 'polyline'))
        .length,
      bar_in_view: (() => { const e = document.getElementById('turnbar'); const r = e.getBoundingClientRect();
                            return r.height > 0 && r.top >= 0 && r.bottom <= window.innerHeight; })(),
    };
  });
}

async function press(page, touch, sel) {
  await page.bringToFront(); /* a page behind another takes no touches */
  await page.waitForSelector(sel + ':not([hidden])', {visible: true});
  await (touch ? tapOn(page, sel) : clickOn(page, sel));
}

// Wait until the bar says want (the server's next state has come).
async function barSays(page, want) {
  await page.waitForFunction((w) => document.getElementById('turn-text').textContent === w, LONG, want);
}

// The phase as the server has it now (a change refused must not come later
// through the live feed: the page's copy could still be the older one).
async function serverPhase(page) {
  return page.evaluate(async () => (await (await fetch('api/state')).json()).phase);
}

async function shot(page, name) {
  await page.bringToFront(); /* a page behind another is not drawn */
  await page.screenshot({path: path.join(outDir, name + '.png')});
}

async function body(browser, r) {
  const errors = [];
  r.page_errors = errors;
  const keyA = urlA, noKeyA = urlA.split('?')[0];
  const phone = await open(browser, keyA, PHONE, 'phone', errors);
  const laptop = await open(browser, noKeyA, LAPTOP, 'laptop', errors);
  // 1. the game played to its end, the British moving all along
  for (const p of [phone, laptop])
    await p.waitForFunction(() => window.ttTable.state() && window.ttTable.state().camera === 'ended' &&
                            document.querySelectorAll('#checks li').length > 0, LONG);
  r.phone_end = await seen(phone);
  r.laptop_end = await seen(laptop);
  r.state_end = await state(phone);
  await shot(phone, 'phone-referee-checks');
  await shot(laptop, 'laptop-referee-checks');

  // 2. Next without the key (the laptop's page has none)
  await press(laptop, false, '#turn-next');
  await laptop.waitForSelector('#trouble .card[data-trouble="phase"]');
  r.laptop_nokey = await seen(laptop);
  r.phase_after_nokey = await serverPhase(laptop);
  await shot(laptop, 'laptop-referee-nokey');
  const phoneNoKey = await open(browser, noKeyA, PHONE, 'phone-nokey', errors);
  await phoneNoKey.waitForFunction(() => document.getElementById('turn-text').textContent.startsWith('Turn'), LONG);
  await press(phoneNoKey, true, '#turn-next');
  await phoneNoKey.waitForSelector('#trouble .card[data-trouble="phase"]');
  r.phone_nokey = await seen(phoneNoKey);
  await shot(phoneNoKey, 'phone-referee-nokey');
  await phoneNoKey.close();

  // 3. Next with the key: the French move; the fusilier taken off is a casualty
  await press(phone, true, '#turn-next');
  await barSays(phone, 'Turn 1 \u00b7 French \u00b7 movement');
  await phone.waitForFunction(() => document.querySelectorAll('#referee .card.call').length > 0, LONG);
  r.phone_french = await seen(phone);
  r.french_state = await state(phone);
  await shot(phone, 'phone-referee-calls');
  const steps = ['Turn 1 \u00b7 British \u00b7 shooting', 'Turn 1 \u00b7 French \u00b7 shooting',
                 'Turn 1 \u00b7 British \u00b7 assault', 'Turn 1 \u00b7 French \u00b7 assault'];
  r.steps = [];
  for (const want of steps) {
    await press(phone, true, '#turn-next');
    await barSays(phone, want);
    r.steps.push(want);
  }
  r.after_shooting = await seen(phone);
  // the last phase's Next: the page asks who won the initiative roll for turn 2
  await press(phone, true, '#turn-next');
  await phone.waitForSelector('#turn-ask button[data-side]', {visible: true});
  r.initiative = await seen(phone);
  r.phase_while_asking = await serverPhase(phone);
  await shot(phone, 'phone-referee-initiative');
  await press(phone, true, '#turn-ask button[data-side="french"]');
  await barSays(phone, 'Turn 2 \u00b7 French \u00b7 movement');
  r.turn2 = await seen(phone);
  r.turn2_state = await state(phone);
  // a phase picked directly
  await press(phone, true, '#turn-pick');
  await phone.waitForSelector('#turn-form', {visible: true});
  await phone.select('#pick-phase', 'shooting');
  await phone.select('#pick-side', 'british');
  await press(phone, true, '#pick-set');
  await barSays(phone, 'Turn 2 \u00b7 British \u00b7 shooting');
  r.picked = await seen(phone);
  // a stale choice: a phase this ruleset does not have
  await press(phone, true, '#turn-pick');
  await phone.waitForSelector('#turn-form', {visible: true});
  await phone.evaluate(() => {
    const s = document.getElementById('pick-phase');
    const o = document.createElement('option');
    o.value = o.textContent = 'melee';
    s.appendChild(o);
    s.value = 'melee';
  });
  await press(phone, true, '#pick-set');
  await phone.waitForSelector('#trouble .card[data-trouble="phase"]');
  r.unknown_phase = await seen(phone);
  r.phase_after_unknown = await serverPhase(phone);
  await shot(phone, 'phone-referee-unknown');
  await shot(laptop, 'laptop-referee-end');

  // 4. no phase yet: Start the game, who won the initiative
  const fresh = await open(browser, urlB, PHONE, 'phone-start', errors);
  await fresh.waitForFunction(() => !document.getElementById('turnbar').hidden &&
                              !document.getElementById('turn-start').hidden, LONG);
  r.start = await seen(fresh);
  await shot(fresh, 'phone-referee-start');
  await press(fresh, true, '#turn-start');
  await fresh.waitForSelector('#turn-ask button[data-side]', {visible: true});
  r.start_ask = await seen(fresh);
  await press(fresh, true, '#turn-ask button[data-side="british"]');
  await barSays(fresh, 'Turn 1 \u00b7 British \u00b7 movement');
  r.started = await seen(fresh);
  r.started_state = (await state(fresh)).phase;
}

launch.run(body);
