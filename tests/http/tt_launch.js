// tt_launch.js - Debian's Chromium through puppeteer-core, as every browser
// test starts it (never a downloaded browser; TT_CHROMIUM names another);
// launch.run(body) runs a test's body and prints its one JSON line.
'use strict';
const puppeteer = require('puppeteer-core');

module.exports = function launch() {
  return puppeteer.launch({
    executablePath: process.env.TT_CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });
};

// Run body(browser, result), which fills result; an exception becomes
// result.error; the browser is closed; result is printed as one JSON line.
module.exports.run = async function run(body) {
  const result = {};
  const browser = await module.exports();
  try {
    await body(browser, result);
  } catch (e) {
    result.error = String(e && e.stack || e);
  } finally {
    await browser.close();
  }
  console.log(JSON.stringify(result));
};
