// tt_launch.js - Debian's Chromium through puppeteer-core, as every browser
// test starts it (never a downloaded browser; TT_CHROMIUM names another).
'use strict';
const puppeteer = require('puppeteer-core');

module.exports = function launch() {
  return puppeteer.launch({
    executablePath: process.env.TT_CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });
};
