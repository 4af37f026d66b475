// Keeps the page open in headless chromium for a while, as a person watching it would (its
// polling of /v1/runs and /v1/host included), and says what the page asked for and whether
// anything failed. bench/load.sh runs it beside its load with LOAD_PAGE=1.
//   node bench/page_viewer.js <url> <seconds>
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const puppeteer = require(path.join(__dirname, '..', 'tests', 'js', 'node_modules', 'puppeteer-core'));

async function main() {
  const [url, seconds] = process.argv.slice(2);
  if (!url || !(Number(seconds) > 0)) {
    console.error('usage: node bench/page_viewer.js <url> <seconds>');
    process.exit(2);
  }
  const browser = await puppeteer.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu'],
  });
  // puppeteer starts chromium in a session of its own, and with the kernel's autogroups
  // (sched_autogroup_enabled) a session shares the CPUs as one group whatever its processes'
  // nice values: give chromium's group this process's niceness, so `nice -n 19 node ...`
  // really puts the browser behind the agent.
  const niceness = os.getPriority();
  if (niceness > 0 && browser.process()) {
    try {
      fs.writeFileSync(`/proc/${browser.process().pid}/autogroup`, String(niceness));
    } catch (error) {
      if (error.code !== 'ENOENT') console.error(`cannot set chromium's autogroup nice: ${error.message}`);
    }
  }
  let requests = 0;
  const byPath = new Map();  // after the page loaded: what its polling costs the agent
  let loaded = false;
  const problems = [];
  try {
    const page = await browser.newPage();
    await page.setViewport({ width: 1920, height: 1080 });
    page.on('request', (request) => {
      requests += 1;
      const { pathname } = new URL(request.url());
      if (loaded) byPath.set(pathname, (byPath.get(pathname) || 0) + 1);
    });
    page.on('requestfailed', (request) => problems.push(`failed ${request.url()}`));
    page.on('response', (response) => {
      if (response.status() >= 400) problems.push(`${response.status()} ${response.url()}`);
    });
    page.on('pageerror', (error) => problems.push(`page error ${error.message}`));
    await page.goto(url, { waitUntil: 'networkidle0', timeout: 30000 });
    loaded = true;
    console.log('page loaded');
    await new Promise((resolve) => setTimeout(resolve, Number(seconds) * 1000));
    console.log(`page open ${seconds} s: ${requests} requests, ${problems.length} problems` +
                (problems.length ? `: ${problems.slice(0, 3).join('; ')}` : ''));
    const perMinute = [...byPath].map(([name, count]) => `${name} ${(count * 60 / Number(seconds)).toFixed(1)}`);
    console.log(`after loading, per minute: ${perMinute.join(', ')}`);
  } finally {
    await browser.close();
  }
  process.exit(problems.length ? 1 : 0);
}

main().catch((error) => {
  console.error(error.stack || String(error));
  process.exit(1);
});
