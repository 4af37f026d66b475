// The page in a real browser (Debian's chromium through puppeteer-core) against the real daemon:
// the host card, runs started from the forms, their charts, errors in words, cancel, the token,
// hostile host strings, and screenshots at 1920 and 375 px.
//   node page_test.js <hostprobe-binary> <output-directory>
// Exit status: 0 passed, 1 failed, 77 skipped (no chromium).
'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const zlib = require('node:zlib');
const puppeteer = require('../js/node_modules/puppeteer-core');
const { Daemons, WAIT_MS } = require('./daemon.js');
const { startFakeEcs } = require('../support/fake_ecs.js');

const CHROMIUM = '/usr/bin/chromium';
const SOURCE_ROOT = path.resolve(__dirname, '../..');
const FARGATE = path.join(SOURCE_ROOT, 'tests/fixtures/sysroots/fargate-e5-2686v4');
const TOKEN = 'browser-test-token-7f3a';
const HOSTILE_MODEL = '<img src=x onerror=alert(1)>';

const [binary, outputDir] = process.argv.slice(2);
if (!binary || !outputDir) {
  console.error('usage: node page_test.js <hostprobe-binary> <output-directory>');
  process.exit(2);
}
if (!fs.existsSync(CHROMIUM)) {
  console.error(`SKIPPED: no ${CHROMIUM} (apt-get install chromium)`);
  process.exit(77);
}

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'hostprobe-browser-'));
const daemons = new Daemons(binary, scratch);
const startDaemon = (...args) => daemons.start(...args);

function check(condition, message) {
  if (!condition) throw new Error(message);
}

function copyHostileSysroot() {
  const root = path.join(scratch, 'hostile-sysroot');
  fs.cpSync(FARGATE, root, { recursive: true });
  const cpuinfo = path.join(root, 'proc/cpuinfo');
  const text = fs.readFileSync(cpuinfo, 'utf8').replace(/^model name\t: .*$/gm, `model name\t: ${HOSTILE_MODEL}`);
  fs.writeFileSync(cpuinfo, text);
  return root;
}

// Opens the page and records what must not happen: console errors, page errors, failed
// requests, answers >= 400 other than the ones the case provokes, and dialogs.
async function openPage(browser, base, { width = 1280, expectedStatuses = [] } = {}) {
  // A fresh context each time: an empty cache (a first load) and no sessionStorage.
  const context = await browser.createBrowserContext();
  const page = await context.newPage();
  await page.setViewport({ width, height: 900 });
  const problems = [];
  const requests = [];
  const expected = (status) => expectedStatuses.includes(status);
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    const status = /status of (\d{3})/.exec(message.text());
    if (!(status && expected(Number(status[1])))) problems.push(`console error: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('requestfailed', (request) => problems.push(`request failed: ${request.url()} ${request.failure()?.errorText}`));
  page.on('response', (response) => {
    if (response.status() >= 400 && !expected(response.status())) problems.push(`answer ${response.status()} to ${response.url()}`);
  });
  page.on('request', (request) => requests.push({ url: request.url(), headers: request.headers() }));
  const pageFiles = [];
  page.on('response', (response) => {
    const { pathname } = new URL(response.url());
    if (pathname === '/' || pathname.startsWith('/ui/')) pageFiles.push(response.buffer().then((body) => body.length ? zlib.gzipSync(body).length : 0, () => 0));
  });
  page.on('dialog', async (dialog) => {
    problems.push(`dialog opened: ${dialog.message()}`);
    await dialog.dismiss();
  });
  const response = await page.goto(`${base}/`, { waitUntil: 'load' });
  check((response.headers()['content-type'] || '').startsWith('text/html'), `GET / gave ${response.headers()['content-type']}, not the page`);
  return { page, context, problems, requests, response, pageFiles };
}

async function closePage({ page, context, problems }, name) {
  page.removeAllListeners('requestfailed');
  await context.close();
  check(problems.length === 0, `${name}: ${problems.join('; ')}`);
}

const loaded = (page) => page.waitForSelector('body[data-loaded="true"]', { timeout: WAIT_MS });

async function runIdAfterSubmit(page, probe) {
  await page.click(`form[data-probe="${probe}"] button[type="submit"]`);
  await page.waitForFunction(() => /^#run\//.test(location.hash), { timeout: WAIT_MS });
  return page.evaluate(() => decodeURIComponent(location.hash.slice(5)));
}

async function setField(page, probe, name, value) {
  const selector = `form[data-probe="${probe}"] [name="${name}"]`;
  await page.$eval(selector, (input, text) => { input.value = ''; }, value);
  await page.type(selector, String(value));
}

async function chooseOnly(page, probe, name, values) {
  await page.$$eval(`form[data-probe="${probe}"] input[name="${name}"]`, (boxes, wanted) => {
    for (const box of boxes) if (box.checked !== wanted.includes(box.value)) box.click();
  }, values);
}

async function waitForState(page, id, state) {
  await page.waitForSelector(`#runs-table tr[data-run-id="${id}"][data-state="${state}"]`, { timeout: WAIT_MS });
}

const cases = [];
function testCase(name, body) {
  cases.push({ name, body });
}

testCase('the host card shows what /v1/host says (fargate-e5-2686v4: quota 0.25, 1 worker)', async ({ browser, main }) => {
  const session = await openPage(browser, main);
  const { page } = session;
  await loaded(page);
  const host = await (await fetch(`${main}/v1/host`)).json();
  const shown = await page.evaluate(() => Object.fromEntries(['model', 'microarchitecture', 'quota', 'workers', 'ec2-families']
    .map((field) => [field, document.querySelector(`[data-field="${field}"]`)?.textContent])));
  check(shown.model === host.cpu.model_name, `model shown ${shown.model}, /v1/host ${host.cpu.model_name}`);
  check(shown.microarchitecture === host.guess.microarchitecture && shown.microarchitecture === 'Broadwell', `microarchitecture ${shown.microarchitecture}`);
  check(host.cgroup.cpu_quota_cores === 0.25 && shown.quota === '0.25 cores', `quota shown ${shown.quota}`);
  check(host.cpu_budget.workers === 1 && shown.workers === '1', `workers shown ${shown.workers}`);
  check(shown['ec2-families'].startsWith('guess: ') && shown['ec2-families'].includes('m4'), `EC2 families ${shown['ec2-families']}`);
  await page.waitForSelector('[data-field="throttled-share"]', { timeout: WAIT_MS });
  // The headline's first line is the machine, from the same answer; no cipher run yet.
  const headline = await page.evaluate(() => ({
    cpu: document.querySelector('[data-field="headline-cpu"]')?.textContent,
    hypervisor: document.querySelector('[data-field="headline-hypervisor"]')?.textContent,
    budget: document.querySelector('[data-field="headline-budget"]')?.textContent,
    budgetLink: document.querySelector('[data-field="headline-budget"] a')?.getAttribute('href'),
    run: document.querySelector('#headline-run')?.textContent,
  }));
  check(headline.cpu === host.cpu.model_name, `headline CPU ${headline.cpu}`);
  check(headline.hypervisor && host.hypervisor.vendor && headline.hypervisor.startsWith(host.hypervisor.vendor) &&
    headline.hypervisor.includes(host.hypervisor.platform), `headline hypervisor '${headline.hypervisor}', /v1/host ${JSON.stringify(host.hypervisor)}`);
  check(headline.budget === `budget ${host.cpu_budget.cores} cores` && headline.budgetLink === '/v1/host#/cpu_budget/cores',
    `headline budget '${headline.budget}' (${headline.budgetLink}), /v1/host ${host.cpu_budget.cores}`);
  check(headline.run.startsWith('No cipher run yet'), `headline before any run: '${headline.run}'`);
  // Every module the page imports is announced in index.html (modulepreload), so the browser
  // fetches them all at once instead of one import level after another.
  const preloaded = await page.$$eval('link[rel="modulepreload"]', (links) => links.map((link) => new URL(link.href).pathname).sort());
  const modules = [...new Set(session.requests.map((request) => new URL(request.url).pathname)
    .filter((pathname) => /^\/ui\/[a-z_]+\.js$/.test(pathname) && pathname !== '/ui/app.js'))].sort();
  check(JSON.stringify(preloaded) === JSON.stringify(modules), `modulepreload ${preloaded}, modules fetched ${modules}`);
  const compressed = (await Promise.all(session.pageFiles)).reduce((sum, size) => sum + size, 0);
  check(session.pageFiles.length >= 5 && compressed <= 150 * 1024, `first load: ${session.pageFiles.length} files, ${compressed} bytes gzipped`);
  console.log(`note: first load ${session.pageFiles.length} files, ${(compressed / 1024).toFixed(1)} KiB gzipped`);
  const headers = session.response.headers();
  const policy = headers['content-security-policy'] || '';
  check(policy.includes("default-src 'self'") && policy.includes("frame-ancestors 'none'"), `Content-Security-Policy: '${policy}'`);
  check(headers['x-content-type-options'] === 'nosniff', 'no X-Content-Type-Options: nosniff');
  await closePage(session, 'host card');
});

testCase('a cipher run started from the form: the progress bar moves, it succeeds, its charts are drawn', async ({ browser, main, context }) => {
  const session = await openPage(browser, main);
  const { page } = session;
  await loaded(page);
  await chooseOnly(page, 'cipher', 'ciphers', ['aes-128-gcm', 'chacha20']);
  await setField(page, 'cipher', 'block_sizes', '8192');
  await setField(page, 'cipher', 'seconds', '1');
  const id = await runIdAfterSubmit(page, 'cipher');
  await page.waitForFunction((runId) => {
    const bar = document.querySelector(`#runs-table tr[data-run-id="${runId}"] progress`);
    return bar && bar.value > 0 && bar.value < 1;
  }, { timeout: WAIT_MS, polling: 50 }, id);
  await waitForState(page, id, 'succeeded');
  await page.waitForFunction(() => document.querySelectorAll('figure[data-chart="cipher-throughput"]').length === 2, { timeout: WAIT_MS });
  const charts = await page.$$eval('figure[data-chart="cipher-throughput"]', (figures) => figures.map((figure) => ({
    cipher: figure.dataset.cipher,
    series: figure.chart.series.length,
    data: figure.chart.data.map((column) => Array.from(column)),
    canvas: figure.querySelector('canvas')?.width || 0,
  })));
  check(JSON.stringify(charts.map((chart) => chart.cipher)) === '["aes-128-gcm","chacha20"]', `charts for ${charts.map((c) => c.cipher)}`);
  for (const chart of charts) {
    check(chart.series === 3 && chart.data.length === 3, `${chart.cipher}: ${chart.series} series (x, wall-clock, CPU time expected)`);
    check(chart.data.every((column) => column.length === 1), `${chart.cipher}: points per series ${chart.data.map((c) => c.length)}`);
    check(chart.data[1][0] > 0 && chart.data[2][0] > 0 && chart.canvas > 0, `${chart.cipher}: nothing drawn`);
  }
  const explanation = await page.$eval('[data-field="cipher-explanation"]', (node) => node.textContent);
  const run = await (await fetch(`${main}/v1/runs/${id}`)).json();
  check(explanation === run.result.explanation, 'the throttling explanation is not the run\'s');
  await page.waitForSelector('figure[data-chart="cipher-history"]', { timeout: WAIT_MS });
  context.cipherRun = id;
  await closePage(session, 'cipher run');
});

// Reads a displayed rate ("1.23 GB/s", "512 MB/s") back as bytes per second.
function shownRate(text) {
  const match = /^([\d,.]+) (GB|MB)\/s$/.exec(text || '');
  return match ? Number(match[1].replaceAll(',', '')) * (match[2] === 'GB' ? 1e9 : 1e6) : NaN;
}

function pointerValue(document, pointer) {
  return pointer.split('/').slice(1).reduce((value, key) => (value === undefined ? undefined : value[key]), document);
}

async function shownHeadlineRun(page) {
  return page.evaluate(() => {
    const field = (name) => document.querySelector(`#headline-run [data-field="${name}"]`);
    return {
      cell: field('headline-cell')?.textContent,
      wall: field('headline-wall')?.textContent,
      wallLink: field('headline-wall')?.querySelector('a')?.getAttribute('href'),
      cpu: field('headline-cpu-time')?.textContent,
      cpuLink: field('headline-cpu-time')?.querySelector('a')?.getAttribute('href'),
      verdict: field('headline-verdict')?.textContent,
      run: field('headline-run-link')?.textContent,
    };
  });
}

// The headline's figure is the run's 8 KiB cell of its first cipher at its own thread count:
// the same two numbers as the run's JSON (within the rounding of three significant digits), and
// each links to the field it came from.
function checkHeadlineRun(shown, run, cipher) {
  const cell = run.result.measurements.find((candidate) => candidate.cipher === cipher && candidate.block_bytes === 8192 &&
    candidate.threads === run.result.threads);
  check(cell, `run ${run.id} has no ${cipher} 8 KiB cell`);
  const index = run.result.measurements.indexOf(cell);
  check(shown.run === `run ${run.id}`, `headline names ${shown.run}, the latest cipher run is ${run.id}`);
  check(shown.cell === `${cipher} 8 KiB`, `headline cell '${shown.cell}'`);
  for (const [label, text, link, value, field] of [
    ['wall-clock', shown.wall, shown.wallLink, cell.bytes_per_second, 'bytes_per_second'],
    ['CPU time', shown.cpu, shown.cpuLink, cell.cpu_bytes_per_second, 'cpu_bytes_per_second']]) {
    const figure = shownRate(text);
    check(Math.abs(figure - value) <= 0.01 * value, `headline ${label} '${text}', run ${run.id} says ${value} B/s`);
    check(link === `/v1/runs/${run.id}#/result/measurements/${index}/${field}` &&
      pointerValue(run, link.split('#')[1]) === value, `headline ${label} links to ${link}`);
  }
  check(shown.verdict === (run.result.throttled ? 'throttled' : 'not throttled'),
    `headline verdict '${shown.verdict}', the run's throttled is ${run.result.throttled}`);
}

testCase('the headline: the machine from /v1/host, the latest cipher run\'s wall-clock against CPU time, live', async ({ browser, main, context }) => {
  check(context.cipherRun, 'needs the cipher run of the case before');
  const session = await openPage(browser, main);
  const { page } = session;
  await loaded(page);
  const latest = async () => (await (await fetch(`${main}/v1/runs?probe=cipher&state=succeeded&limit=1`)).json()).runs[0];
  const first = await latest();
  await page.waitForFunction((id) => document.querySelector('[data-field="headline-run-link"]')?.textContent === `run ${id}`,
    { timeout: WAIT_MS }, first.id);
  checkHeadlineRun(await shownHeadlineRun(page), first, first.params.ciphers[0]);
  // A run that finishes while the page is open takes the headline without a reload.
  const answer = await fetch(`${main}/v1/runs?wait=60`, { method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ probe: 'cipher', params: { ciphers: ['chacha20'], block_sizes: [1024, 8192], seconds: 0.2 } }) });
  const second = await answer.json();
  check(second.state === 'succeeded', `the new cipher run ended ${second.state}`);
  await page.waitForFunction((id) => document.querySelector('[data-field="headline-run-link"]')?.textContent === `run ${id}`,
    { timeout: WAIT_MS }, second.id);
  checkHeadlineRun(await shownHeadlineRun(page), second, 'chacha20');
  await closePage(session, 'headline');
});

testCase('a disk run in an allowed directory draws the latency histograms with p99 marked', async ({ browser, main, diskDir }) => {
  const session = await openPage(browser, main);
  const { page } = session;
  await loaded(page);
  await page.click('details[data-probe="disk"] summary');
  // The allowed directory is offered before any run used it (/v1/probes's examples).
  const offered = await page.$$eval('form[data-probe="disk"] datalist.known-directories option', (options) => options.map((option) => option.value));
  check(JSON.stringify(offered) === JSON.stringify([fs.realpathSync(diskDir)]), `the disk form offers ${JSON.stringify(offered)}, not the allowed directory`);
  await setField(page, 'disk', 'directory', diskDir);
  await page.select('form[data-probe="disk"] [name="rw"]', 'randrw');
  await setField(page, 'disk', 'size', '4m');
  await setField(page, 'disk', 'bs', '4k');
  await setField(page, 'disk', 'runtime', '2');
  await page.$eval('form[data-probe="disk"] [name="direct"]', (box) => { if (box.checked) box.click(); });
  const id = await runIdAfterSubmit(page, 'disk');
  await waitForState(page, id, 'succeeded');
  await page.waitForFunction(() => document.querySelectorAll('figure[data-chart="disk-histogram"]').length === 2, { timeout: WAIT_MS });
  const run = await (await fetch(`${main}/v1/runs/${id}`)).json();
  const histograms = await page.$$eval('figure[data-chart="disk-histogram"]', (figures) => figures.map((figure) => ({
    direction: figure.dataset.direction,
    points: figure.chart.data[0].length,
    logX: figure.chart.scales.x.distr,
    p99: figure.querySelector('[data-mark="p99"]')?.textContent,
  })));
  for (const histogram of histograms) {
    const side = run.result[histogram.direction];
    check(histogram.points === Object.keys(side.clat_ns.bins).length, `${histogram.direction}: ${histogram.points} points`);
    check(histogram.logX === 3, `${histogram.direction}: the latency axis is not logarithmic`);
    check(histogram.p99 && histogram.p99.startsWith('p99 '), `${histogram.direction}: p99 not marked`);
  }
  await page.waitForSelector('figure[data-chart="disk-iops"]', { timeout: WAIT_MS });
  await closePage(session, 'disk run');
});

testCase('an out-of-range value shows the agent\'s 400 message next to the field', async ({ browser, main }) => {
  const session = await openPage(browser, main, { expectedStatuses: [400] });
  const { page } = session;
  await loaded(page);
  await setField(page, 'cipher', 'seconds', '99');
  await page.click('form[data-probe="cipher"] button[type="submit"]');
  const selector = 'form[data-probe="cipher"] .field[data-param="seconds"] .field-error:not([hidden])';
  await page.waitForSelector(selector, { timeout: WAIT_MS });
  const shown = await page.$eval(selector, (node) => node.textContent);
  const answer = await (await fetch(`${main}/v1/runs`, { method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ probe: 'cipher', params: { seconds: 99 } }) })).json();
  check(answer.status === 400 && shown.includes(answer.error) && shown.includes('400'), `shown '${shown}', agent '${answer.error}'`);
  await closePage(session, '400 in words');
});

testCase('a running run is cancelled from the page', async ({ browser, main }) => {
  const session = await openPage(browser, main);
  const { page } = session;
  await loaded(page);
  await chooseOnly(page, 'cipher', 'ciphers', ['aes-128-gcm']);
  await setField(page, 'cipher', 'block_sizes', '16');
  await setField(page, 'cipher', 'seconds', '60');
  const id = await runIdAfterSubmit(page, 'cipher');
  const button = `#runs-table tr[data-run-id="${id}"][data-state="running"] button[data-action="cancel"]`;
  await page.waitForSelector(button, { timeout: WAIT_MS });
  // From the keyboard: the button takes the focus and Enter presses it.
  await page.focus(button);
  await page.keyboard.press('Enter');
  await waitForState(page, id, 'cancelled');
  await closePage(session, 'cancel');
});

testCase('two cipher runs compared on one chart', async ({ browser, main, context }) => {
  check(context.cipherRun, 'needs the cipher run of the case before');
  const answer = await fetch(`${main}/v1/runs?wait=60`, { method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ probe: 'cipher', params: { ciphers: ['aes-128-gcm'], block_sizes: [8192], seconds: 0.2 } }) });
  const second = await answer.json();
  check(second.state === 'succeeded', `the second cipher run ended ${second.state}`);
  const session = await openPage(browser, `${main}`);
  const { page } = session;
  await loaded(page);
  await page.evaluate((id) => { location.hash = `#run/${id}`; }, second.id);
  await page.waitForSelector(`#compare-select option[value="${context.cipherRun}"]`, { timeout: WAIT_MS });
  await page.select('#compare-select', context.cipherRun);
  await page.waitForSelector('figure[data-chart="compare"] canvas', { timeout: WAIT_MS });
  const compared = await page.$eval('figure[data-chart="compare"]', (figure) => ({
    series: figure.chart.series.map((series) => series.label),
    data: figure.chart.data.map((column) => Array.from(column)),
  }));
  // The labels are the union of both runs' figures: aes-128-gcm 8 KiB in both, chacha20 in one.
  check(compared.series.length === 3 && compared.data[0].length === 2, `compare chart ${JSON.stringify(compared)}`);
  check(compared.data[1].filter((value) => value !== null).length === 1 && compared.data[2].every((value) => value > 0),
    `compare values ${JSON.stringify(compared.data)}`);
  await closePage(session, 'compare');
});

testCase('screenshots at 1920 and 375 px; the runs table fits its card at 1920 px and scrolls in a named region at 375 px', async ({ browser, main, context }) => {
  // A running run shows the widest row: a progress bar and a Cancel button.
  const running = await (await fetch(`${main}/v1/runs`, { method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ probe: 'cipher', params: { ciphers: ['aes-128-gcm'], block_sizes: [16], seconds: 60 } }) })).json();
  try {
    for (const width of [1920, 375]) {
      const session = await openPage(browser, main, { width });
      const { page } = session;
      await loaded(page);
      if (context.cipherRun) {
        await page.evaluate((id) => { location.hash = `#run/${id}`; }, context.cipherRun);
        await page.waitForSelector('figure[data-chart="cipher-throughput"] canvas', { timeout: WAIT_MS });
      }
      await page.waitForSelector(`#runs-table tr[data-run-id="${running.id}"] button[data-action="cancel"]`, { timeout: WAIT_MS });
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      check(overflow <= 0, `${width} px: the page is ${overflow} px wider than the window`);
      const table = await page.$eval('#runs .table-wrap', (wrap) => ({
        scroll: wrap.scrollWidth, width: wrap.clientWidth, tabindex: wrap.getAttribute('tabindex'), role: wrap.getAttribute('role'),
        name: document.getElementById(wrap.getAttribute('aria-labelledby') || '')?.textContent,
        inCard: wrap.getBoundingClientRect().right <= wrap.closest('.card').getBoundingClientRect().right,
      }));
      check(table.inCard, `${width} px: the runs table's box leaves its card`);
      if (width === 1920) check(table.scroll <= table.width, `1920 px: the runs table is ${table.scroll} px wide in ${table.width} px`);
      else check(table.role === 'region' && table.tabindex === '0' && table.name === 'Runs', `the runs table's scrolling box ${JSON.stringify(table)}`);
      await page.screenshot({ path: path.join(outputDir, `page-${width}.png`), fullPage: true });
      await closePage(session, `screenshot ${width}`);
    }
  } finally {
    await fetch(`${main}/v1/runs/${running.id}`, { method: 'DELETE' });
  }
});

testCase('the live machine: the host card shows what /v1/host says', async ({ browser, live }) => {
  const session = await openPage(browser, live);
  const { page } = session;
  await loaded(page);
  const host = await (await fetch(`${live}/v1/host`)).json();
  const shown = await page.evaluate(() => ({
    model: document.querySelector('[data-field="model"]')?.textContent,
    workers: document.querySelector('[data-field="workers"]')?.textContent,
  }));
  check(shown.model === host.cpu.model_name, `model shown ${shown.model}, /v1/host ${host.cpu.model_name}`);
  check(shown.workers === String(host.cpu_budget.workers), `workers shown ${shown.workers}, /v1/host ${host.cpu_budget.workers}`);
  await closePage(session, 'live machine');
});

testCase('idle, each tick asks for the host, then the run list on the same connection; an unchanged list is a 304', async ({ browser, live }) => {
  const session = await openPage(browser, live);
  const { page } = session;
  const cdp = await page.createCDPSession();
  await cdp.send('Network.enable');
  // The status on the wire: after a 304 the page (and responseReceived) sees the cached 200.
  const wireStatus = new Map();
  cdp.on('Network.responseReceivedExtraInfo', ({ requestId, statusCode }) => wireStatus.set(requestId, statusCode));
  const answers = [];
  cdp.on('Network.responseReceived', ({ requestId, response, timestamp }) => {
    const { pathname, search } = new URL(response.url);
    if (pathname === '/v1/host' || pathname === '/v1/runs') {
      answers.push({ requestId, path: pathname + search, connection: response.connectionId, timestamp });
    }
  });
  await loaded(page);
  // Two ticks (10 s apart) after the first load's requests.
  const since = answers.length;
  const deadline = Date.now() + 35000;
  while (answers.slice(since).filter((answer) => answer.path.startsWith('/v1/runs?')).length < 2 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const ticks = answers.slice(since);
  const lists = ticks.filter((answer) => answer.path.startsWith('/v1/runs?'));
  check(lists.length >= 2, `run lists after loading: ${JSON.stringify(ticks)}`);
  for (const list of lists) {
    const host = ticks.filter((answer) => answer.path === '/v1/host' && answer.timestamp <= list.timestamp).pop();
    check(host && host.connection === list.connection,
      `a run list not on its tick's host connection: ${JSON.stringify(ticks)}`);
  }
  const statuses = lists.map((list) => wireStatus.get(list.requestId));
  check(statuses.includes(304), `no run list was revalidated (304): ${JSON.stringify(statuses)}`);
  const hosts = ticks.filter((answer) => answer.path === '/v1/host').length;
  check(lists.length <= hosts + 1, `${lists.length} run lists for ${hosts} host answers`);
  await cdp.detach();
  await closePage(session, 'idle ticks');
});

testCase('a hidden page does not poll the agent; shown again, it asks at once', async ({ browser, live }) => {
  const session = await openPage(browser, live);
  const { page } = session;
  const hostAsked = [];
  page.on('request', (request) => {
    if (new URL(request.url()).pathname === '/v1/host') hostAsked.push(Date.now());
  });
  await loaded(page);
  // What the browser does when the tab goes to the background.
  const setHidden = (hidden) => page.evaluate((value) => {
    Object.defineProperty(document, 'hidden', { configurable: true, get: () => value });
    document.dispatchEvent(new Event('visibilitychange'));
  }, hidden);
  await setHidden(true);
  const hiddenAt = Date.now();
  // Longer than a tick (10 s): a page that still polled would have asked by now.
  await new Promise((resolve) => setTimeout(resolve, 12000));
  check(hostAsked.filter((at) => at > hiddenAt + 500).length === 0,
    `hidden, the page asked for the host ${hostAsked.filter((at) => at > hiddenAt + 500).length} times`);
  const shownAt = Date.now();
  await setHidden(false);
  const deadline = Date.now() + 5000;
  while (!hostAsked.some((at) => at >= shownAt) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const asked = hostAsked.find((at) => at >= shownAt);
  check(asked !== undefined && asked - shownAt < 2000, `shown again, the host was asked after ${asked - shownAt} ms`);
  await closePage(session, 'hidden page');
});

testCase('--auth-reads: the page asks for the token, a wrong one is refused in words, the right one works', async ({ browser, authed }) => {
  const session = await openPage(browser, authed, { expectedStatuses: [401] });
  const { page, requests } = session;
  await page.waitForSelector('#token:not([hidden])', { timeout: WAIT_MS });
  await page.type('#token-input', 'not-the-token');
  await page.click('#token-form button');
  await page.waitForFunction(() => /refused the token \(401/.test(document.querySelector('#token-reason').textContent) &&
    !document.querySelector('#token').hidden, { timeout: WAIT_MS });
  await page.type('#token-input', TOKEN);
  await page.click('#token-form button');
  await loaded(page);
  const model = await page.$eval('[data-field="model"]', (node) => node.textContent);
  check(model.startsWith('Intel(R) Xeon(R) CPU E5-2686 v4'), `model ${model}`);
  check(await page.evaluate(() => sessionStorage.getItem('hostprobe.token')) === TOKEN, 'the token is not in sessionStorage');
  check(await page.evaluate(() => localStorage.length === 0 && document.cookie === ''), 'the token leaked to localStorage or a cookie');
  check(!requests.some((request) => request.url.includes(TOKEN)), 'the token appeared in a URL');
  check(requests.some((request) => request.headers.authorization === `Bearer ${TOKEN}`), 'no request carried Authorization: Bearer');
  await closePage(session, 'token');
});

testCase('a hostile CPU model name is shown as text and opens no dialog', async ({ browser, hostile }) => {
  const session = await openPage(browser, hostile);
  const { page } = session;
  await loaded(page);
  const shown = await page.evaluate(() => ({
    model: document.querySelector('[data-field="model"]').textContent,
    headline: document.querySelector('[data-field="headline-cpu"]').textContent,
    images: document.querySelectorAll('img').length,
  }));
  check(shown.model === HOSTILE_MODEL && shown.headline === HOSTILE_MODEL, `shown ${JSON.stringify(shown)}`);
  check(shown.images === 0, 'the model name became an <img> element');
  await closePage(session, 'hostile model name');
});

testCase('outside ECS the Task card says so; as a sidecar it shows every container, live', async ({ browser, main, task, fakeEcs }) => {
  const outside = await openPage(browser, main);
  await loaded(outside.page);
  const absent = await outside.page.$eval('[data-field="task-absent"]', (node) => node.textContent);
  check(absent.startsWith('Not in an ECS task'), `outside ECS: '${absent}'`);
  await closePage(outside, 'task card outside ECS');

  const session = await openPage(browser, task);
  const { page } = session;
  await loaded(page);
  await page.waitForSelector('#task-table tr[data-container="prometheus"] [data-field="container-cpu"]', { timeout: WAIT_MS });
  const rows = await page.$$eval('#task-table tbody tr', (trs) => trs.map((tr) => ({
    name: tr.dataset.container,
    stopped: tr.classList.contains('stopped'),
    state: tr.querySelector('[data-field="container-state"]').textContent,
    cpuMeter: tr.querySelector('[data-field="container-cpu"] meter')?.getAttribute('max'),
    memoryMeter: tr.querySelector('[data-field="container-memory"] meter')?.getAttribute('max'),
    io: tr.querySelector('[data-field="container-io"]')?.textContent || '',
    other: tr.querySelector('[data-field="container-other"]')?.textContent || '',
  })));
  const api = (await (await fetch(`${task}/v1/task`)).json());
  check(JSON.stringify(rows.map((row) => row.name)) === JSON.stringify(api.containers.map((c) => c.name)),
    `rows ${rows.map((row) => row.name)}, /v1/task ${api.containers.map((c) => c.name)}`);
  const stopped = rows.find((row) => row.name === 'nonessential');
  check(stopped.stopped && stopped.state === 'STOPPED, exit 0' && !stopped.cpuMeter, `the stopped container: ${JSON.stringify(stopped)}`);
  const running = rows.find((row) => row.name === 'prometheus');
  check(running.cpuMeter === '0.25' && running.memoryMeter === String(512 * 1024 * 1024), `prometheus's bars: ${JSON.stringify(running)}`);
  check(running.io.startsWith('eth1 ↓ ') && running.io.includes('disk read 85.1 MiB') &&
    running.other.includes('18,975 page faults (693 major)') && running.other.includes('prom/prometheus:v3.1.0'),
  `prometheus's I/O '${running.io}', other '${running.other}'`);
  const cpu = await page.$eval('[data-field="task-cpu"]', (node) => node.textContent);
  check(/ of 0\.25 vCPU \(/.test(cpu), `task CPU: '${cpu}'`);
  // The app next door starts using the whole task: the card follows within its refreshes.
  await fetch(`${fakeEcs}/_documents`, { method: 'POST', body: JSON.stringify({ cores: { prometheus: 0.3 } }) });
  await page.waitForFunction(() => {
    const text = document.querySelector('[data-field="task-saturation"]')?.textContent || '';
    return /^[1-9][0-9.]* % of /.test(text);
  }, { timeout: WAIT_MS });
  const saturation = await page.$eval('[data-field="task-saturation"]', (node) => node.textContent);
  const after = await (await fetch(`${task}/v1/task`)).json();
  check(after.cpu_saturation.ratio > 0, `saturation on the page '${saturation}', /v1/task ${after.cpu_saturation.ratio}`);
  // Then prometheus stops (Fargate's null stats, STOPPED, exit 137) and ecs-exporter's memory
  // climbs to 480 MiB of the task's 512: the row greys out, the warning names the container.
  const fixtures = path.join(SOURCE_ROOT, 'tests/fixtures/ecs/ecs_exporter');
  const taskDocument = JSON.parse(fs.readFileSync(path.join(fixtures, 'fargate_task_metadata.json'), 'utf8'));
  const statsDocument = JSON.parse(fs.readFileSync(path.join(fixtures, 'fargate_task_stats.json'), 'utf8'));
  for (const container of taskDocument.Containers) {
    if (container.Name === 'prometheus') {
      Object.assign(container, { KnownStatus: 'STOPPED', ExitCode: 137 });
      statsDocument[container.DockerId] = null;
    }
    if (container.Name === 'ecs-exporter') {
      const memory = statsDocument[container.DockerId].memory_stats;
      memory.usage = 480 * 1024 * 1024 + memory.stats.total_inactive_file;
    }
  }
  await fetch(`${fakeEcs}/_documents`, { method: 'POST', body: JSON.stringify({ task: taskDocument, stats: statsDocument }) });
  await page.waitForSelector('#task-table tr.stopped[data-container="prometheus"]', { timeout: WAIT_MS });
  const stoppedState = await page.$eval('#task-table tr[data-container="prometheus"] [data-field="container-state"]', (node) => node.textContent);
  check(stoppedState === 'STOPPED, exit 137', `prometheus after stopping: '${stoppedState}'`);
  await page.waitForFunction(() => [...document.querySelectorAll('[data-field="task-warnings"] li')]
    .some((item) => item.textContent.startsWith('ecs-exporter: memory working set 480.0 MiB is 94%')), { timeout: WAIT_MS });
  await closePage(session, 'task card');
});

async function main() {
  fs.mkdirSync(outputDir, { recursive: true });
  const ecs = await startFakeEcs('/v4/page', 0.02);
  daemons.children.push(ecs.child);
  const fakeEcs = ecs.uri;
  const diskDir = fs.mkdtempSync(path.join(scratch, 'disk-'));
  const [mainBase, authedBase, hostileBase, liveBase, taskBase] = await Promise.all([
    startDaemon('fargate', ['--sysroot', FARGATE, '--disk-dir', diskDir]),
    startDaemon('authed', ['--sysroot', FARGATE, '--auth-reads', '--trusted-peers', ''], { HOSTPROBE_TOKEN: TOKEN }),
    startDaemon('hostile', ['--sysroot', copyHostileSysroot()]),
    startDaemon('live', []),
    startDaemon('task', ['--sysroot', FARGATE, '--ecs-stats-interval', '1'], { ECS_CONTAINER_METADATA_URI_V4: fakeEcs }),
  ]);
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: process.getuid && process.getuid() === 0 ? ['--no-sandbox'] : [],
  });
  const environment = { browser, main: mainBase, authed: authedBase, hostile: hostileBase, live: liveBase, task: taskBase, fakeEcs, diskDir, context: {} };
  let failed = 0;
  try {
    for (const { name, body } of cases) {
      const started = Date.now();
      try {
        await body(environment);
        console.log(`ok   ${name} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
      } catch (error) {
        failed += 1;
        console.log(`FAIL ${name}: ${error.message}`);
      }
    }
  } finally {
    await browser.close();
  }
  return failed;
}

main().then((failed) => {
  console.log(failed === 0 ? 'all browser cases passed' : `${failed} browser case(s) failed`);
  process.exitCode = failed === 0 ? 0 : 1;
}, (error) => {
  console.error(error);
  process.exitCode = 1;
}).finally(() => {
  daemons.stopAll();
  fs.rmSync(scratch, { recursive: true, force: true });
});
