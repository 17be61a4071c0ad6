// browser.js - the live table page in Debian's Chromium, driven by
// puppeteer-core, as a player on a phone would use it (390x844, touch).
// usage: node browser.js URL PROJECTOR_JSON OVERLAY_DIR OUT_DIR
// Prints one JSON line of what it saw; test_http_browser.py judges it.
'use strict';
const fs = require('fs');
const path = require('path');
const launch = require('./tt_launch');
const {state, tapTable, tapFigure, tapSel, tapElement, cardText, pngSquare} = require('./tt_page');

const [url, projectorJson, overlayDir, outDir] = process.argv.slice(2);
const H = JSON.parse(fs.readFileSync(projectorJson, 'utf8')).table_to_projector;
const result = {steps: []};

function toProjector(x, y) {
  const w = H[2][0] * x + H[2][1] * y + H[2][2];
  return [(H[0][0] * x + H[0][1] * y + H[0][2]) / w, (H[1][0] * x + H[1][1] * y + H[1][2]) / w];
}

// Brightest pixel within r of (x, y) in a PNG.
async function brightness(page, file, x, y, r) {
  const d = await pngSquare(page, file, x, y, r);
  let best = 0;
  for (let i = 0; i < d.length; i += 4) best = Math.max(best, d[i] + d[i + 1] + d[i + 2]);
  return best;
}

(async () => {
  const browser = await launch();
  try {
    const page = await browser.newPage();
    const outside = [];
    page.on('request', (r) => { if (!r.url().startsWith(url.split('?')[0]) && !r.url().startsWith('data:')) outside.push(r.url()); });
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.setViewport({width: 390, height: 844, deviceScaleFactor: 2, isMobile: true, hasTouch: true});
    await page.goto(url, {waitUntil: 'load'});
    await page.waitForFunction(() => window.ttTable.state() && window.ttTable.state().camera === 'ended' &&
                               document.querySelectorAll('g.fig').length > 5);
    const s0 = await state(page);
    result.frame = s0.frame;
    await page.screenshot({path: path.join(outDir, 'phone-table.png')});

    // the projector image where the line of fire will be, before asking
    const g1 = s0.figures.find((f) => f.id === 'gren1'), f1 = s0.figures.find((f) => f.id === 'fus1');
    // three points along the line (a dashed line has gaps), away from the rings:
    // a ring circles the tag's dark mask (2.1x the 0.8" tag, any turn: radius
    // 1.29") and its facing tick reaches 0.4" beyond
    const along = [];
    const ringReach = 0.8 * 2.1 * Math.SQRT1_2 + 0.1 + 0.4 + 0.2;
    for (let k = 0.05; k < 0.96; k += 0.025) {
      const x = g1.x + k * (f1.x - g1.x), y = g1.y + k * (f1.y - g1.y);
      if (s0.figures.every((f) => Math.hypot(f.x - x, f.y - y) > ringReach)) along.push(toProjector(x, y));
    }
    result.points_checked = along.length;
    const overlay = path.join(overlayDir, 'overlay_' + String(s0.frame).padStart(5, '0') + '.png');
    const lineBrightness = async () => {
      let best = 0;
      for (const p of along) best = Math.max(best, await brightness(page, overlay, p[0], p[1], 6));
      return best;
    };
    result.felt_before = await lineBrightness();

    // tap the shooter: a menu of questions
    await tapFigure(page, 'gren1');
    await page.waitForSelector('#menu:not([hidden]) button[data-q="fire"]');
    result.menu = await page.$$eval('#menu button', (b) => b.map((x) => x.getAttribute('data-q')));
    await page.screenshot({path: path.join(outDir, 'phone-menu.png')});
    await tapSel(page, '#menu button[data-q="fire"]');
    await tapFigure(page, 'fus1');
    result.fire_card = await cardText(page);
    await new Promise((r) => setTimeout(r, 800));
    result.felt_after = await lineBrightness();
    await page.screenshot({path: path.join(outDir, 'phone-answer.png')});

    // set up: trace a building between them on the table picture, save
    await tapSel(page, '#tab-setup');
    await page.waitForFunction(() => document.querySelector('#table image') !== null);
    await page.waitForFunction(() => document.querySelectorAll('#terrain-list li').length > 0);
    await page.select('#kind', 'building');
    // a thin building just beyond the shooter, across the line to the target
    const bx = g1.x + 1.2, y0 = Math.max(0.5, Math.min(g1.y, f1.y) - 2), y1 = Math.min(23.5, Math.max(g1.y, f1.y) + 2);
    for (const [x, y] of [[bx, y0], [bx + 0.5, y0], [bx + 0.5, y1], [bx, y1]]) await tapTable(page, x, y);
    await page.screenshot({path: path.join(outDir, 'phone-setup.png')});
    await tapSel(page, '#finish');
    await tapSel(page, '#save');
    await page.waitForFunction(() => document.getElementById('setup-msg').textContent === 'Saved.');
    await page.waitForFunction(() => window.ttTable.state().terrain.some((t) => t.id === 'building-1'));
    result.saved = true;

    // back to play: the line of sight now crosses the new building
    await tapSel(page, '#tab-play');
    await tapSel(page, '#clear');
    await page.waitForFunction(() => window.ttTable.state().shown.length === 0);
    await tapFigure(page, 'gren1');
    await page.waitForSelector('#menu:not([hidden]) button[data-q="los"]');
    await tapSel(page, '#menu button[data-q="los"]');
    await tapFigure(page, 'fus1');
    result.los_card = await cardText(page);
    result.menu_closed = await page.$eval('#menu', (m) => getComputedStyle(m).display === 'none');
    await page.screenshot({path: path.join(outDir, 'phone-blocked.png')});

    // the menus follow each figure's weapon: a gun has grape and ball, a
    // mortar is aimed at a spot and the dice decide where the shell lands
    await tapFigure(page, 'gun1');
    await page.waitForSelector('#menu:not([hidden]) button[data-q="grape"]');
    result.gun_menu = await page.$$eval('#menu button', (b) => b.map((x) => x.getAttribute('data-q')));
    await tapFigure(page, 'mortar1');
    await page.waitForSelector('#menu:not([hidden]) button[data-q="deviate"]');
    result.mortar_menu = await page.$$eval('#menu button', (b) => b.map((x) => x.getAttribute('data-q')));
    await page.screenshot({path: path.join(outDir, 'phone-mortar-menu.png')});
    await tapSel(page, '#menu button[data-q="deviate"]');
    const s1 = await state(page), m1 = s1.figures.find((f) => f.id === 'mortar1');
    const gun = s1.figures.find((f) => f.id === 'gun1');
    let aim = null;  // an empty spot on the way to the gun
    for (let k = 0.5; k < 0.95 && !aim; k += 0.05) {
      const x = m1.x + k * (gun.x - m1.x), y = m1.y + k * (gun.y - m1.y);
      if (s1.figures.every((f) => Math.hypot(f.x - x, f.y - y) > 1.5)) aim = [x, y];
    }
    result.aim = aim;
    await tapTable(page, aim[0], aim[1]);
    await page.waitForSelector('#menu:not([hidden]) input[name="long_short"]');
    result.inch_die_hidden_first = await page.$eval('input[name="long_short_in"]', (i) => i.parentNode.hidden);
    await page.type('input[name="long_short"]', '6');  // long: a die of inches appears
    result.inch_die_shown_when_long = await page.$eval('input[name="long_short_in"]', (i) => !i.parentNode.hidden);
    await page.type('input[name="long_short_in"]', '2');
    await page.type('input[name="left_right"]', '3');  // on target left-right
    await page.screenshot({path: path.join(outDir, 'phone-dice.png')});
    await tapSel(page, '#menu button[data-q="deviate-go"]');
    await page.waitForFunction(() => window.ttTable.state().shown.some((s) => s.query.q === 'deviate'));
    result.deviate_card = await cardText(page);
    result.deviate_shown = (await state(page)).shown.find((s) => s.query.q === 'deviate');
    await page.screenshot({path: path.join(outDir, 'phone-deviate.png')});

    // a charge: how far, and does it reach
    await tapFigure(page, 'crew1');
    await page.waitForSelector('#menu:not([hidden]) button[data-q="charge"]');
    result.crew_menu = await page.$$eval('#menu button', (b) => b.map((x) => x.getAttribute('data-q')));
    await tapSel(page, '#menu button[data-q="charge"]');
    await tapFigure(page, 'fus1');
    await page.waitForFunction(() => window.ttTable.state().shown.some((s) => s.query.q === 'charge'));
    result.charge_card = await cardText(page);
    result.charge_answer = (await state(page)).shown.find((s) => s.query.q === 'charge').answer;

    // a unit's fire (asked by a script, as a page for a unit would): a line
    // from every firer to its target
    result.unit_fire = await page.evaluate(async (key) => {
      await fetch('api/query', {method: 'POST', headers: {'X-Table-Key': key},
                                body: JSON.stringify({q: 'fire', from: 'grenadiers', to: 'fus1'})});
      for (let i = 0; i < 100; i++) {
        const s = window.ttTable.state().shown.find((x) => x.query.from === 'grenadiers');
        if (s) {
          await new Promise((r) => setTimeout(r, 300));
          const figs = window.ttTable.state().figures;
          const at = (id) => figs.find((f) => f.id === id);
          const lines = [...document.querySelectorAll('#overlays line')];
          const drawn = (s.answer.shots || []).filter((sh) => lines.some((l) =>
            Math.abs(+l.getAttribute('x1') - at(sh.from).x) < 1e-6 && Math.abs(+l.getAttribute('y1') - at(sh.from).y) < 1e-6 &&
            Math.abs(+l.getAttribute('x2') - at(sh.to).x) < 1e-6 && Math.abs(+l.getAttribute('y2') - at(sh.to).y) < 1e-6));
          return {shots: (s.answer.shots || []).length, drawn: drawn.length};
        }
        await new Promise((r) => setTimeout(r, 100));
      }
      return null;
    }, new URL(url).searchParams.get('key'));

    // every answer is drawn from its look (table_look's primitives, docs/api.md): each
    // line and label of each answer shown is on the page where its look puts it ...
    result.looks = await page.evaluate(() => {
      const shown = window.ttTable.state().shown;
      const lines = [...document.querySelectorAll('#overlays line')].map((l) =>
        ['x1', 'y1', 'x2', 'y2'].map((k) => +l.getAttribute(k)));
      const labels = [...document.querySelectorAll('#overlays text.ov-label')].map((t) => t.textContent);
      let prims = 0, drawn = 0;
      shown.forEach((s) => (s.look || []).forEach((p) => {
        if (p.kind === 'polyline' && p.points.length === 2) {
          prims++;
          const want = [].concat(p.points[0], p.points[1]);
          drawn += lines.some((l) => l.every((v, i) => Math.abs(v - want[i]) < 1e-9)) ? 1 : 0;
        } else if (p.kind === 'text') {
          prims++;
          drawn += labels.includes(p.text) ? 1 : 0;
        }
      }));
      return {answers: shown.length, with_look: shown.filter((s) => Array.isArray(s.look)).length, prims, drawn};
    });
    // ... and an answer of a kind no page knows, with a role's primitives, is drawn as
    // they say (the painter knows shapes and roles, never answer kinds)
    result.new_kind = await page.evaluate(async () => {
      const TTDraw = await import('./draw.js');
      const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
      document.body.appendChild(svg);
      TTDraw.answers(svg, [{qid: 1, query: {q: 'parley', from: 'a'}, answer: {},
        look: [{kind: 'polyline', role: 'command', width_in: 0.08, dashed: true, points: [[1, 2], [3, 4], [5, 2]]},
               {kind: 'sector', role: 'arc', width_in: 0.05, fill_alpha: 0.3, at: [10, 10], r_in: 6, r0_in: 0,
                a0_deg: -15, a1_deg: 15},
               {kind: 'circle', role: 'target', width_in: 0.08, at: [7, 8], r_in: 0.7},
               {kind: 'text', role: 'blocked', at: [6, 6], text: 'no parley', size_in: 0.4, angle_deg: 0},
               {kind: 'tag_mask', at: [7, 8], facing_deg: 0, side_in: 2, z_in: 0}]}]);
      const pl = svg.querySelector('polyline'), ring = svg.querySelector('circle.ov-ring');
      const sector = svg.querySelector('path[data-role="arc"]'), label = svg.querySelector('text.ov-label');
      const out = {elements: svg.children.length, polyline: pl && pl.getAttribute('points'),
                   polyline_colour: pl && pl.getAttribute('stroke'), dashed: pl && pl.getAttribute('stroke-dasharray'),
                   sector_fill: sector && sector.getAttribute('fill'), ring: ring && [ring.getAttribute('cx'),
                   ring.getAttribute('cy'), ring.getAttribute('r'), ring.getAttribute('stroke')],
                   label: label && label.textContent, label_colour: label && label.getAttribute('fill')};
      svg.remove();
      return out;
    });

    // set up again: the rubble becomes woods, the house is redrawn
    await tapSel(page, '#tab-setup');
    await page.waitForFunction(() => document.querySelectorAll('#terrain-list li select').length > 0);
    result.kinds_offered = await page.$$eval('#kind option', (o) => o.map((x) => x.value));
    const pieces = await page.$$eval('#terrain-list li span', (s) => s.map((x) => x.textContent));
    const ir = pieces.indexOf('rubble'), ih = pieces.indexOf('house');
    await page.select('#terrain-list li:nth-child(' + (ir + 1) + ') select', 'woods');
    const redraw = await page.$$('#terrain-list li button');
    const hb = (await Promise.all(redraw.map((b) => b.evaluate((x) => x.textContent + '|' + x.parentNode.firstChild.textContent))))
      .indexOf('Redraw|house');
    await tapElement(page, redraw[hb]);
    for (const [x, y] of [[26, 4], [30, 4], [30, 7], [26, 7]]) await tapTable(page, x, y);
    await tapSel(page, '#finish');
    await page.screenshot({path: path.join(outDir, 'phone-edit.png')});
    await tapSel(page, '#save');
    await page.waitForFunction(() => /Saved|Not saved/.test(document.getElementById('setup-msg').textContent));
    result.edit_saved = await page.$eval('#setup-msg', (e) => e.textContent);
    await page.waitForFunction(() => window.ttTable.state().terrain.some((t) => t.id === 'rubble' && t.kind === 'woods'));
    result.edited_terrain = (await state(page)).terrain.filter((t) => t.id === 'rubble' || t.id === 'house');
    await tapSel(page, '#tab-play');

    // a laptop sees the same
    await page.setViewport({width: 1400, height: 900, deviceScaleFactor: 1});
    await new Promise((r) => setTimeout(r, 500));
    await page.screenshot({path: path.join(outDir, 'laptop-table.png')});
    result.layout_phone_ok = true;
    result.outside_requests = outside;
    result.page_errors = errors;
  } catch (e) {
    result.error = launch.errorText(e);
  } finally {
    await browser.close();
  }
  console.log(JSON.stringify(result));
})();
