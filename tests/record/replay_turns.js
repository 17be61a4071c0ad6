// replay_turns.js - the replay page of a game played with the referee's
// phases (issue 30), in Debian's Chromium (puppeteer-core): the turns and
// phases marked on the timeline where they began, the log turn by turn,
// jumping by turn (Page Down / Page Up, the Turn buttons, a click on a
// turn), where the game stands beside the clock; at laptop and phone sizes.
// usage: node replay_turns.js REPLAY_HTML OUT_DIR
// Prints one JSON line of what it saw; test_replay_turns.py judges it.
'use strict';
const path = require('path');
const launch = require(path.join(__dirname, '..', 'http', 'tt_launch'));

const [pagePath, outDir] = process.argv.slice(2);
const result = {};

// What the page shows now: its time, the phase beside the clock, the
// probe's phase, the log line marked active.
async function shown(page) {
  return page.evaluate(() => ({
    now: ttReplay.now(),
    phase_text: document.getElementById('phase').textContent,
    probe_phase: JSON.parse(document.getElementById('tt-state').textContent).phase,
    active: [...document.querySelectorAll('#turnlog li')].findIndex((li) => li.className === 'active'),
  }));
}

(async () => {
  const browser = await launch();
  try {
    const page = await browser.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    const url = 'file://' + path.resolve(pagePath);
    await page.setViewport({width: 1400, height: 900, deviceScaleFactor: 1});
    await page.goto(url, {waitUntil: 'load'});
    result.data = await page.evaluate(() => ({t0: ttReplay.data.t0, t1: ttReplay.data.t1, referee: ttReplay.data.referee}));
    // the marks: where each sits along the slider, and what it says
    result.marks = await page.evaluate(() => {
      const s = document.getElementById('scrub').getBoundingClientRect();
      return [...document.querySelectorAll('#tmarks span')].map((m) => {
        const b = m.getBoundingClientRect();
        return {cls: m.className, turn: +m.getAttribute('data-turn'), title: m.title, label: m.textContent,
                frac: (b.left + b.width / 2 - s.left) / s.width, visible: b.height > 0 && b.width > 0};
      });
    });
    result.log = await page.$$eval('#turnlog li', (ls) => ls.map((l) => ({turn: +l.getAttribute('data-turn'),
                                                                           text: l.children[1].textContent})));
    result.buttons = await page.$$eval('#prevturn, #nextturn', (bs) => bs.map((b) => !b.hidden && b.offsetWidth > 0));
    result.start = await shown(page);
    await page.screenshot({path: path.join(outDir, 'replay-turns-laptop.png')});
    // Page Down: the next turn's start; again: nothing after the last
    await page.keyboard.press('PageDown');
    result.after_pagedown = await shown(page);
    await page.keyboard.press('PageDown');
    result.after_pagedown2 = await shown(page);
    await page.screenshot({path: path.join(outDir, 'replay-turns-laptop-turn2.png')});
    await page.keyboard.press('PageUp');
    result.after_pageup = await shown(page);
    // the Turn ▶ button, then a click on the first turn's log line
    await page.click('#nextturn');
    result.after_next_button = await shown(page);
    await page.click('#turnlog li:first-child');
    result.after_log_click = await shown(page);
    // half-way through turn 1's second phase: the phase it is in
    const p = result.data.referee.phases;
    if (p.length > 2) {
      await page.evaluate((t) => ttReplay.setTime(t), Math.round((p[1].t + p[2].t) / 2));
      result.mid_phase = await shown(page);
    }
    // the table as the felt showed it after an over-move: its path and
    // words drawn in the "blocked" role (vermillion), gone at the next phase
    const over = await page.evaluate(() => {
      const D = ttReplay.data, over = (i) => (D.ref_looks[i] || []).some((p) => p.role === 'blocked' && p.kind === 'polyline');
      const f = (D.felt || []).find((x) => x.ids.some(over));
      return f ? f.t : null;
    });
    if (over !== null) {
      const blocked = () => page.$$eval('#overlays [data-role="blocked"]', (es) => es.map((e) => e.tagName));
      await page.evaluate((t) => ttReplay.setTime(t), over);
      result.over_move = {t: over, blocked: await blocked()};
      await page.screenshot({path: path.join(outDir, 'replay-turns-laptop-over.png')});
      const next = p.find((x) => x.t > over);
      if (next) {
        await page.evaluate((t) => ttReplay.setTime(t), next.t);
        result.over_move.next_phase_blocked = await blocked();
      }
    }
    // a phone: the timeline over the full width, its marks and the log below the table
    await page.setViewport({width: 390, height: 844, deviceScaleFactor: 2, isMobile: true, hasTouch: true});
    await page.goto(url, {waitUntil: 'load'});
    result.phone = await page.evaluate(() => {
      const t = document.getElementById('timeline').getBoundingClientRect();
      const marks = [...document.querySelectorAll('#tmarks span.turn')].map((m) => m.getBoundingClientRect());
      return {timeline_width: t.width / window.innerWidth, turn_marks: marks.length,
              marks_inside: marks.every((b) => b.left >= t.left - 1 && b.right <= t.right + 12)};
    });
    await page.screenshot({path: path.join(outDir, 'replay-turns-phone.png'), fullPage: true});
    result.page_errors = errors;
  } catch (e) {
    result.error = launch.errorText(e);
  } finally {
    await browser.close();
  }
  console.log(JSON.stringify(result));
})();
