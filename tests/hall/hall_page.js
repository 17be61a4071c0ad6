// hall_page.js - the hall page in Debian's Chromium (puppeteer-core from
// tests/http) at a phone's and a laptop's size, while tables publish.
// A click on a playing table watches it live: the figures drawn are the
// table's state (compared with GET /tables/NAME/state at the same frame); a
// click on a finished one replays the hall's copy, and the replay advances.
// usage: node hall_page.js URL OUT_DIR TABLES LIVE_TABLE DONE_TABLE
// Prints one JSON line of what it saw; test_hall.py judges it.
'use strict';
const path = require('path');
const launch = require(path.join(__dirname, '../http/tt_launch'));

const [url, outDir, tables, liveName, doneName] = process.argv.slice(2);
/* Waits for what the page must come to show: long, they only guard against a
 * hang (a starved machine runs Chromium slowly; nothing here is a speed). */
const HANG_MS = 150000;

/* The watch panel: the figures drawn (tag, x, y from each disc's place on
 * the board) and the frame, once they are the frame the hall serves now. */
async function watchedMatchesState(page, name) {
  for (const end = Date.now() + HANG_MS; Date.now() < end;) {
    const r = await page.evaluate(async n => {
      const svg = document.getElementById('wsvg');
      const st = await (await fetch('tables/' + n + '/state', {cache: 'no-store'})).json();
      const drawn = [...svg.querySelectorAll('#figures g.fig')].map(g => {
        const m = /translate\(([-\d.e]+) ([-\d.e]+)\)/.exec(g.getAttribute('transform'));
        return [Number(g.getAttribute('data-tag')), Number(m[1]), Number(m[2])];
      });
      return {frame: Number(svg.getAttribute('data-frame')), api_frame: st.frame, drawn,
              state: st.figures.map(f => [f.tag, f.x, f.y])};
    }, name);
    if (r.frame === r.api_frame) {
      const key = a => a.slice().sort((p, q) => p[0] - q[0]);
      const d = key(r.drawn), s = key(r.state);
      r.match = d.length === s.length && d.length > 0 &&
                d.every((p, k) => p[0] === s[k][0] && Math.abs(p[1] - s[k][1]) < 1e-6 && Math.abs(p[2] - s[k][2]) < 1e-6);
      return r;
    }
    await new Promise(res => setTimeout(res, 100));
  }
  return {match: false, error: 'the panel never showed the frame the hall serves'};
}

async function clickCard(page, name) {
  const cards = await page.$$('.card');
  for (const c of cards)
    if ((await c.evaluate(e => e.querySelector('.name').textContent)) === name) return c.click();
  throw new Error('no card for ' + name);
}

let step = 'start', current = null; /* where a failure happened, and the page then */
(async () => {
  const browser = await launch();
  const result = {};
  for (const [w, h, name] of [[390, 844, 'phone'], [1400, 900, 'laptop']]) {
    const page = current = await browser.newPage();
    step = name + ': the cards';
    await page.setViewport({width: w, height: h, deviceScaleFactor: 1});
    await page.goto(url, {waitUntil: 'load'});
    await page.waitForFunction(n => {
      const cards = document.querySelectorAll('.card');
      return cards.length >= n && [...cards].every(c => c.querySelectorAll('svg .fig').length > 0);
    }, {timeout: HANG_MS}, Number(tables));
    await new Promise(r => setTimeout(r, 1500));
    result[name] = await page.evaluate(() => {
      const cards = [...document.querySelectorAll('.card')];
      return {
        cards: cards.length,
        lefts: [...new Set(cards.map(c => Math.round(c.getBoundingClientRect().left)))].length,
        widths: cards.map(c => Math.round(c.getBoundingClientRect().width)),
        overflow: document.documentElement.scrollWidth > window.innerWidth,
        figures: cards.map(c => c.querySelectorAll('svg .fig').length),
        terrain: cards.map(c => c.querySelectorAll('svg #terrain > *').length),
        ages: cards.map(c => c.querySelector('.age').textContent),
        meta: cards.map(c => c.querySelector('.meta').textContent),
        questions: cards.map(c => c.querySelector('.q').textContent),
        summary: document.getElementById('summary').textContent,
      };
    });
    await page.screenshot({path: path.join(outDir, 'hall-' + name + '.png')});
    // a click on a playing table: watched live, read-only
    step = name + ': a click on ' + liveName + ', watched live';
    await clickCard(page, liveName);
    await page.waitForFunction(() => !document.getElementById('watch').hidden &&
                               document.querySelectorAll('#wsvg #figures .fig').length > 0, {timeout: HANG_MS});
    const wv = await watchedMatchesState(page, liveName);
    wv.mode = await page.$eval('#watch', e => e.getAttribute('data-mode'));
    wv.hash = await page.evaluate(() => location.hash);
    wv.svg = await page.$eval('#wsvg', e => { const b = e.getBoundingClientRect(); return [b.width, b.height]; });
    wv.overflow = await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);
    await new Promise(r => setTimeout(r, 1200)); /* an answer drawn, as a rule */
    await page.screenshot({path: path.join(outDir, 'hall-watch-' + name + '.png')});
    // back, then a click on a finished table: its replay, which plays
    await page.click('#wclose');
    wv.closed = await page.$eval('#watch', e => e.hidden);
    step = name + ': a click on ' + doneName + ', its replay';
    await clickCard(page, doneName);
    await page.waitForFunction(() => {
      const f = document.getElementById('wframe');
      return !f.hidden && f.contentWindow && f.contentWindow.ttReplay;
    }, {timeout: HANG_MS});
    const rp = await page.evaluate(() => ({
      mode: document.getElementById('watch').getAttribute('data-mode'),
      live_shown: getComputedStyle(document.getElementById('wlive')).display !== 'none',
      frame_h: document.getElementById('wframe').getBoundingClientRect().height / window.innerHeight,
    }));
    const frame = (await page.$('#wframe').then(h => h.contentFrame()));
    Object.assign(rp, await frame.evaluate(() => {
      const R = window.ttReplay;
      R.setTime(R.data.t0);
      const s0 = JSON.parse(document.getElementById('tt-state').textContent);
      R.play();
      return {figs: R.data.figs.length, t0: R.data.t0, t1: R.data.t1, now0: R.now(), start: s0.figures};
    }));
    /* three seconds of the game played (the fixture's first figure moves
     * from 2 s), as fast as the machine lets it: how fast is no matter here */
    const played = Date.now();
    await frame.waitForFunction(n0 => window.ttReplay.now() - n0 >= 3000, {timeout: HANG_MS}, rp.now0)
      .catch(() => {});
    rp.wall_ms = Date.now() - played;
    Object.assign(rp, await frame.evaluate(() => {
      const s1 = JSON.parse(document.getElementById('tt-state').textContent);
      return {now1: window.ttReplay.now(), playing: window.ttReplay.playing(), later: s1.figures};
    }));
    rp.moved = JSON.stringify(rp.start) !== JSON.stringify(rp.later);
    delete rp.start;
    delete rp.later;
    await page.screenshot({path: path.join(outDir, 'hall-replay-' + name + '.png')});
    result[name].watch = wv;
    result[name].replay = rp;
    await page.close();
  }
  // the stream page of one table, as OBS's browser source shows it
  const page = current = await browser.newPage();
  step = 'the stream page';
  await page.setViewport({width: 1920, height: 1080, deviceScaleFactor: 1});
  await page.goto(url + 'tables/table-1/stream?transparent=1', {waitUntil: 'load'});
  await page.waitForFunction(() => document.querySelectorAll('svg .fig').length > 0 &&
                                   document.getElementById('answer').className === 'on' &&
                                   document.querySelectorAll('#overlays > *').length > 0, {timeout: HANG_MS});
  await new Promise(r => setTimeout(r, 600));
  result.stream = await page.evaluate(() => {
    const big = document.querySelector('#answer .big');
    const svg = document.querySelector('svg').getBoundingClientRect();
    return {
      figures: document.querySelectorAll('svg .fig').length,
      background: getComputedStyle(document.body).backgroundColor,
      name: document.getElementById('name').textContent,
      answer: big.textContent,
      answer_px: parseFloat(getComputedStyle(big).fontSize),
      svg: [Math.round(svg.width), Math.round(svg.height)],
      overflow: document.documentElement.scrollWidth > 1920 || document.documentElement.scrollHeight > 1080,
      geometry: (() => {
        /* the answer drawn: where its shapes are, against the figures it names */
        const a = lastA, q = a.query, figs = {};
        last.figures.forEach(f => { figs[f.id || String(f.tag)] = [f.x, f.y]; });
        const lines = [...document.querySelectorAll('#overlays line')].map(l =>
          ['x1', 'y1', 'x2', 'y2'].map(k => Number(l.getAttribute(k))));
        const circles = [...document.querySelectorAll('#overlays > circle:not(.ov-ring)')].map(c =>
          ['cx', 'cy', 'r'].map(k => Number(c.getAttribute(k))));
        const label = document.querySelector('#overlays .ov-label');
        const stroke = document.querySelector('#overlays line, #overlays circle, #overlays path');
        const k = document.querySelector('svg').getScreenCTM().a; /* px per inch */
        return {q: q.q, from: figs[q.from] || null, to: typeof q.to === 'string' ? figs[q.to] || null : null,
                at: q.at || null, lines, circles, paths: document.querySelectorAll('#overlays > path').length, rings: document.querySelectorAll('#overlays .ov-ring').length,
                label: label ? label.textContent : null,
                label_px: label ? label.getBoundingClientRect().height : 0,
                stroke_px: stroke ? parseFloat(getComputedStyle(stroke).strokeWidth) * k : 0};
      })(),
    };
  });
  await page.screenshot({path: path.join(outDir, 'hall-stream.png'), omitBackground: true});
  console.log(JSON.stringify(result));
  await browser.close();
})().catch(async e => {
  let seen = null;
  try {
    seen = current && await current.evaluate(() => ({
      hash: location.hash,
      watch: document.getElementById('watch') && document.getElementById('watch').getAttribute('data-mode'),
      hidden: document.getElementById('watch') && document.getElementById('watch').hidden,
      summary: (document.getElementById('summary') || {}).textContent,
    }));
  } catch (e2) {
    seen = String(e2);
  }
  console.log(JSON.stringify({error: step + ': ' + launch.errorText(e) + '; the page: ' + JSON.stringify(seen)}));
  process.exit(1);
});
