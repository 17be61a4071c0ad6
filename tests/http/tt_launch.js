// tt_launch.js - Debian's Chromium through puppeteer-core, as every browser
// test starts it (never a downloaded browser; TT_CHROMIUM names another);
// launch.run(body) runs a test's body and prints its one JSON line.
'use strict';
const puppeteer = require('puppeteer-core');

// How long any wait for what the page or the server will do may take
// (tt_hang.json, shared with the Python side and the ctest TIMEOUTs): a
// guard against a hang, never a speed.  Every page's waits take it unless
// they say otherwise, so a machine with both cores busy only runs slower.
const HANG_MS = require('./tt_hang.json').hang_guard_s * 1000;

// Each DevTools call may take as long as the longest wait: a
// waitForFunction is one call that returns when the page's condition holds,
// and puppeteer's default 180 s limit on a call cut a hang guard short on a
// machine with both cores busy ("Waiting failed").
const PROTOCOL_TIMEOUT_MS = 2 * HANG_MS;

module.exports = async function launch() {
  const browser = await puppeteer.launch({
    executablePath: process.env.TT_CHROMIUM || '/usr/bin/chromium',
    headless: true,
    protocolTimeout: PROTOCOL_TIMEOUT_MS,
    timeout: HANG_MS, /* for Chromium to start */
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });
  // each new page waits up to the hang guard (puppeteer's default is 30 s)
  const newPage = browser.newPage.bind(browser);
  browser.newPage = async function (...args) {
    const page = await newPage(...args);
    page.setDefaultTimeout(HANG_MS);
    page.setDefaultNavigationTimeout(HANG_MS);
    return page;
  };
  return browser;
};
module.exports.HANG_MS = HANG_MS;

// Run body(browser, result), which fills result; an exception becomes
// result.error; the browser is closed; result is printed as one JSON line.
module.exports.run = async function run(body) {
  const result = {};
  const browser = await module.exports();
  try {
    await body(browser, result);
  } catch (e) {
    result.error = module.exports.errorText(e);
  } finally {
    await browser.close();
  }
  console.log(JSON.stringify(result));
};

// An exception as text with its causes ("Waiting failed" says why only in
// its cause).
module.exports.errorText = function errorText(e) {
  let text = String(e && e.stack || e);
  for (let c = e && e.cause, n = 0; c && n < 5; c = c.cause, n++) text += '\ncaused by: ' + String(c.stack || c);
  return text;
};
