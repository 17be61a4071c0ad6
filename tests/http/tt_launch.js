// tt_launch.js - Debian's Chromium through puppeteer-core, as every browser
// test starts it (never a downloaded browser; TT_CHROMIUM names another);
// launch.run(body) runs a test's body and prints its one JSON line.
'use strict';
const puppeteer = require('puppeteer-core');

// Each DevTools call may take as long as the tests' longest wait: a
// waitForFunction is one call that returns when the page's condition holds,
// and puppeteer's default 180 s limit on a call cut a 900 s hang guard short
// on a machine with both cores busy ("Waiting failed").
const PROTOCOL_TIMEOUT_MS = 1200000;

module.exports = function launch() {
  return puppeteer.launch({
    executablePath: process.env.TT_CHROMIUM || '/usr/bin/chromium',
    headless: true,
    protocolTimeout: PROTOCOL_TIMEOUT_MS,
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
