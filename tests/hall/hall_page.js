// hall_page.js - the hall page in Debian's Chromium (puppeteer-core from
// tests/http) at a phone's and a laptop's size, while tables publish.
// usage: node hall_page.js URL OUT_DIR TABLES
// Prints one JSON line of what it saw; test_hall.py judges it.
'use strict';
const path = require('path');
const launch = require(path.join(__dirname, '../http/tt_launch'));

const [url, outDir, tables] = process.argv.slice(2);

(async () => {
  const browser = await launch();
  const result = {};
  for (const [w, h, name] of [[390, 844, 'phone'], [1400, 900, 'laptop']]) {
    const page = await browser.newPage();
    await page.setViewport({width: w, height: h, deviceScaleFactor: 1});
    await page.goto(url, {waitUntil: 'load'});
    await page.waitForFunction(n => {
      const cards = document.querySelectorAll('.card');
      return cards.length >= n && [...cards].every(c => c.querySelectorAll('svg .fig').length > 0);
    }, {timeout: 30000}, Number(tables));
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
    await page.close();
  }
  console.log(JSON.stringify(result));
  await browser.close();
})().catch(e => {
  console.log(JSON.stringify({error: String(e)}));
  process.exit(1);
});
