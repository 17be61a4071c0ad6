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
  // the stream page of one table, as OBS's browser source shows it
  const page = await browser.newPage();
  await page.setViewport({width: 1920, height: 1080, deviceScaleFactor: 1});
  await page.goto(url + 'tables/table-1/stream?transparent=1', {waitUntil: 'load'});
  await page.waitForFunction(() => document.querySelectorAll('svg .fig').length > 0 &&
                                   document.getElementById('answer').className === 'on', {timeout: 30000});
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
    };
  });
  await page.screenshot({path: path.join(outDir, 'hall-stream.png'), omitBackground: true});
  console.log(JSON.stringify(result));
  await browser.close();
})().catch(e => {
  console.log(JSON.stringify({error: String(e)}));
  process.exit(1);
});
