// replay_phone.js - the replay page in Debian's Chromium (puppeteer-core),
// as a player would use it on a phone (390x844, touch) and on a laptop
// (1400x900): the layout, labels that keep apart, the legend, the keyboard
// and the default speed.
// usage: node replay_phone.js REPLAY_HTML OUT_DIR
// Prints one JSON line of what it saw; test_replay_phone.py judges it.
'use strict';
const path = require('path');
const launch = require(path.join(__dirname, '..', 'http', 'tt_launch'));

const [page_path, outDir] = process.argv.slice(2);
const result = {};

// Boxes (screen px) of every label drawn, and of every figure's disc.
async function boxes(page) {
  return page.evaluate(() => {
    const box = (e) => { const b = e.getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; };
    const shown = (e) => !e.closest('[display="none"]') && e.getAttribute('visibility') !== 'hidden' &&
                         e.textContent;
    const labels = [...document.querySelectorAll('#table text')].filter(shown)
      .map((e) => ({text: e.textContent, cls: e.getAttribute('class'), box: box(e),
                    fig: e.classList.contains('fig-label') ? e.parentNode.getAttribute('data-fig') : null}));
    const discs = [...document.querySelectorAll('#table g.fig')].filter((g) => g.getAttribute('display') !== 'none')
      .map((g) => ({fig: g.getAttribute('data-fig'), box: box(g.querySelector('circle'))}));
    return {labels, discs};
  });
}

function hits(a, b) { return a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3]; }

// Every pair of labels that overlap, and every label over another figure.
function clashes(bx) {
  const out = [];
  for (let i = 0; i < bx.labels.length; i++)
    for (let j = i + 1; j < bx.labels.length; j++)
      if (hits(bx.labels[i].box, bx.labels[j].box)) out.push(bx.labels[i].text + ' / ' + bx.labels[j].text);
  for (const l of bx.labels)
    for (const d of bx.discs)
      if (d.fig !== l.fig && hits(l.box, d.box)) out.push(l.text + ' over figure ' + d.fig);
  return out;
}

(async () => {
  const browser = await launch();
  try {
    const page = await browser.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    const url = 'file://' + path.resolve(page_path);
    const D = {};
    result.clashes = {};
    for (const [name, vp] of [['phone', {width: 390, height: 844, deviceScaleFactor: 2, isMobile: true, hasTouch: true}],
                              ['laptop', {width: 1400, height: 900, deviceScaleFactor: 1}]]) {
      await page.setViewport(vp);
      await page.goto(url, {waitUntil: 'load'});
      Object.assign(D, await page.evaluate(() => ({t0: ttReplay.data.t0, t1: ttReplay.data.t1,
                                                   start: ttReplay.data.start, frame: ttReplay.frameMs,
                                                   queries: ttReplay.data.queries.map((q) => q.t)})));
      const svgw = await page.$eval('#table', (s) => s.getBoundingClientRect().width);
      result[name + '_table_width'] = svgw / vp.width;
      // at each question (just after it is asked) and in between
      const times = D.queries.map((t) => t + 300).concat([D.t0, (D.t0 + D.t1) / 2, D.t1]);
      const all = [];
      for (const t of times) {
        await page.evaluate((t) => ttReplay.setTime(t), t);
        for (const c of clashes(await boxes(page))) all.push(Math.round(t - D.start) + ' ms: ' + c);
      }
      result.clashes[name] = all;
      // the grape shot, as the issue saw it
      await page.evaluate((t) => ttReplay.setTime(t), D.queries[1] + 300);
      result[name + '_labels'] = (await boxes(page)).labels.length;
      await page.screenshot({path: path.join(outDir, 'replay-' + name + '.png')});
      if (name === 'phone')
        await page.screenshot({path: path.join(outDir, 'replay-phone-full.png'), fullPage: true});
    }
    result.legend = await page.$$eval('#marks li', (l) => l.map((x) => x.textContent));
    // each question line: its answer in words and the rule it comes from,
    // next to the recorded answer's own "rule"
    result.qlines = await page.evaluate(() => [...document.querySelectorAll('#qlist li')].map((li, i) => ({
      ans: (li.querySelector('.ans') || {}).textContent || null,
      rule: (li.querySelector('.rule') || {}).textContent || null,
      want_rule: (ttReplay.data.queries[i].a || {}).rule || null,
      q: (ttReplay.data.queries[i].q || {}).q || null})));
    result.default_speed = await page.$eval('#speed', (s) => s.value);
    result.length_ms = D.t1 - D.t0;

    // keyboard: arrows a frame, shift+arrows a second, space plays
    await page.evaluate((t) => ttReplay.setTime(t), D.t0 + 1000);
    await page.focus('#scrub');
    const t0 = await page.evaluate(() => ttReplay.now());
    await page.keyboard.press('ArrowRight');
    const t1 = await page.evaluate(() => ttReplay.now());
    await page.keyboard.down('Shift');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.up('Shift');
    const t2 = await page.evaluate(() => ttReplay.now());
    await page.keyboard.press('ArrowLeft');
    const t3 = await page.evaluate(() => ttReplay.now());
    result.frame_ms = D.frame;
    result.steps = [t1 - t0, t2 - t1, t3 - t2];
    await page.evaluate(() => document.activeElement.blur());
    await page.keyboard.press('Space');
    await new Promise((r) => setTimeout(r, 600));
    result.space_plays = await page.evaluate(() => ttReplay.playing());
    result.played_ms = (await page.evaluate(() => ttReplay.now())) - t3;
    await page.keyboard.press('Space');
    result.space_pauses = !(await page.evaluate(() => ttReplay.playing()));

    // the lists by Tab and Enter: tab until a question line has the focus
    await page.evaluate(() => { ttReplay.setTime(ttReplay.data.t0); document.activeElement.blur(); });
    let reached = null;
    for (let i = 0; i < 20 && !reached; i++) {
      await page.keyboard.press('Tab');
      reached = await page.evaluate(() => {
        const a = document.activeElement;
        return a && a.closest('#qlist') ? [...a.parentNode.children].indexOf(a) : null;
      });
    }
    result.tab_reaches_question = reached;
    if (reached !== null) {
      await page.keyboard.press('Enter');
      result.enter_time = (await page.evaluate(() => ttReplay.now())) - D.queries[reached];
    }
    result.page_errors = errors;
  } catch (e) {
    result.error = launch.errorText(e);
  } finally {
    await browser.close();
  }
  console.log(JSON.stringify(result));
})();
