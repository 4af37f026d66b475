// Outside audits of the page in Debian's chromium against the real daemon (a replayed Fargate
// host, 0.25 CPU quota, as a sidecar in a pretend ECS task, so the Task card shows its table): Lighthouse 12 on its mobile and desktop presets, and axe-core's WCAG 2.1
// A/AA rules at 1920 and 375 px, each on the page as first loaded and after a cipher run started
// from the page (the headline's figure, the runs table and the charts shown).
//   node audits.js <hostprobe-binary> <output-directory>
// Exit status: 0 passed, 1 failed, 77 skipped (no chromium).
//
// Thresholds: Lighthouse performance >= 95 and Cumulative Layout Shift <= 0.1, accessibility
// and best practices 100. Lighthouse's simulated throttling (its default: a mid-range phone on
// slow 4G for mobile, a fast desktop for desktop) computes the timings from the page's request
// graph and the CPU time its tasks took here; on a shared 2-core machine that CPU time is noisy,
// so the performance score taken is the median of RUNS runs, while CLS, accessibility and best
// practices must hold on every run. axe: no violation at all of the wcag2a, wcag2aa, wcag21a and
// wcag21aa rules.
'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const puppeteer = require('../js/node_modules/puppeteer-core');
const { AxePuppeteer } = require('../js/node_modules/@axe-core/puppeteer');
const { Daemons, WAIT_MS } = require('./daemon.js');
const { startFakeEcs } = require('../support/fake_ecs.js');

const CHROMIUM = '/usr/bin/chromium';
const SOURCE_ROOT = path.resolve(__dirname, '../..');
const FARGATE = path.join(SOURCE_ROOT, 'tests/fixtures/sysroots/fargate-e5-2686v4');
const RUNS = 3;
const MIN_PERFORMANCE = 0.95;
const MAX_CLS = 0.1;
const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];
// The flags the brief of issue 26 gives for chromium as root in a container.
const CHROMIUM_FLAGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

const [binary, outputDir] = process.argv.slice(2);
if (!binary || !outputDir) {
  console.error('usage: node audits.js <hostprobe-binary> <output-directory>');
  process.exit(2);
}
if (!fs.existsSync(CHROMIUM)) {
  console.error(`SKIPPED: no ${CHROMIUM} (apt-get install chromium)`);
  process.exit(77);
}

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'hostprobe-audits-'));
const daemons = new Daemons(binary, scratch);
const failures = [];
const summary = { lighthouse: [], axe: [] };

function expect(condition, message) {
  if (!condition) failures.push(message);
  return condition;
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const round = (value, digits = 3) => Number(value.toFixed(digits));

async function lighthouseOnce(lighthouse, config, url, port) {
  const answer = await lighthouse(url, {
    port,
    output: 'json',
    logLevel: 'error',
    onlyCategories: ['performance', 'accessibility', 'best-practices'],
  }, config);
  const { lhr } = answer;
  if (lhr.runtimeError) throw new Error(`Lighthouse: ${lhr.runtimeError.code} ${lhr.runtimeError.message}`);
  const below = (category) => lhr.categories[category].auditRefs
    .filter((ref) => ref.weight > 0 && lhr.audits[ref.id].score !== null && lhr.audits[ref.id].score < 1)
    .map((ref) => ref.id);
  const metric = (id) => lhr.audits[id].numericValue;
  return {
    performance: lhr.categories.performance.score,
    accessibility: lhr.categories.accessibility.score,
    bestPractices: lhr.categories['best-practices'].score,
    cls: metric('cumulative-layout-shift'),
    fcpMs: Math.round(metric('first-contentful-paint')),
    lcpMs: Math.round(metric('largest-contentful-paint')),
    tbtMs: Math.round(metric('total-blocking-time')),
    speedIndexMs: Math.round(metric('speed-index')),
    shifted: (lhr.audits['layout-shifts']?.details?.items || []).map((item) => `${item.node?.selector || '?'} ${round(item.score)}`),
    failedAudits: [...below('accessibility'), ...below('best-practices')],
    lhr,
  };
}

// RUNS Lighthouse runs of one preset on one URL: the median performance score, every run's CLS.
async function lighthouseAudit(lighthouse, presets, preset, state, url, port) {
  const runs = [];
  for (let index = 0; index < RUNS; index += 1) runs.push(await lighthouseOnce(lighthouse, presets[preset], url, port));
  const performance = median(runs.map((run) => run.performance));
  const label = `Lighthouse ${preset}, ${state}`;
  const line = runs.map((run) => `perf ${Math.round(run.performance * 100)} CLS ${round(run.cls)} FCP ${run.fcpMs} LCP ${run.lcpMs} TBT ${run.tbtMs} SI ${run.speedIndexMs}`);
  console.log(`note: ${label}: median performance ${Math.round(performance * 100)}; ${line.join(' | ')}`);
  expect(performance >= MIN_PERFORMANCE, `${label}: median performance ${Math.round(performance * 100)} < ${MIN_PERFORMANCE * 100}`);
  for (const [index, run] of runs.entries()) {
    expect(run.cls <= MAX_CLS, `${label}, run ${index + 1}: CLS ${round(run.cls)} > ${MAX_CLS} (${run.shifted.join(', ')})`);
    expect(run.accessibility === 1, `${label}, run ${index + 1}: accessibility ${Math.round(run.accessibility * 100)} (${run.failedAudits.join(', ')})`);
    expect(run.bestPractices === 1, `${label}, run ${index + 1}: best practices ${Math.round(run.bestPractices * 100)} (${run.failedAudits.join(', ')})`);
  }
  const worst = runs.reduce((a, b) => (b.performance < a.performance ? b : a));
  fs.writeFileSync(path.join(outputDir, `lighthouse-${preset}-${state.replaceAll(' ', '-')}.json`), JSON.stringify(worst.lhr));
  summary.lighthouse.push({ preset, state, url, medianPerformance: performance,
    runs: runs.map(({ lhr, ...figures }) => figures) });
}

async function axeAudit(page, label) {
  const results = await new AxePuppeteer(page).withTags(AXE_TAGS).analyze();
  const violations = results.violations.map((violation) =>
    `${violation.id} (${violation.impact}): ${violation.nodes.map((node) => node.target.join(' ')).join('; ')}`);
  console.log(`note: axe ${label}: ${results.violations.length} violations, ${results.passes.length} rules passed, ${results.incomplete.length} incomplete (${results.incomplete.map((rule) => rule.id).join(', ') || 'none'})`);
  expect(violations.length === 0, `axe ${label}: ${violations.join(' | ')}`);
  summary.axe.push({ label, violations, passes: results.passes.length,
    incomplete: results.incomplete.map((rule) => ({ id: rule.id, nodes: rule.nodes.map((node) => node.target.join(' ')) })) });
}

async function openAt(browser, url, width) {
  const context = await browser.createBrowserContext();
  const page = await context.newPage();
  await page.setViewport({ width, height: 900 });
  await page.goto(url, { waitUntil: 'load' });
  await page.waitForSelector('body[data-loaded="true"]', { timeout: WAIT_MS });
  return { page, context };
}

// A short cipher run from the page's own form; resolves with its id once its charts are drawn.
async function cipherRunFromThePage(browser, base) {
  const { page, context } = await openAt(browser, `${base}/`, 1920);
  await page.$$eval('form[data-probe="cipher"] input[name="ciphers"]', (boxes) => {
    for (const box of boxes) if (box.checked !== (box.value === 'aes-128-gcm')) box.click();
  });
  for (const [name, value] of [['block_sizes', '1024,8192'], ['seconds', '0.5']]) {
    const selector = `form[data-probe="cipher"] [name="${name}"]`;
    await page.$eval(selector, (input) => { input.value = ''; });
    await page.type(selector, value);
  }
  await page.click('form[data-probe="cipher"] button[type="submit"]');
  await page.waitForFunction(() => /^#run\//.test(location.hash), { timeout: WAIT_MS });
  const id = await page.evaluate(() => decodeURIComponent(location.hash.slice(5)));
  await page.waitForSelector(`#runs-table tr[data-run-id="${id}"][data-state="succeeded"]`, { timeout: WAIT_MS });
  await page.waitForSelector('figure[data-chart="cipher-throughput"] canvas', { timeout: WAIT_MS });
  await page.waitForSelector('[data-field="headline-wall"]', { timeout: WAIT_MS });
  return { id, page, context };
}

async function main() {
  fs.mkdirSync(outputDir, { recursive: true });
  const { default: lighthouse } = await import('../js/node_modules/lighthouse/core/index.js');
  const { default: desktopConfig } = await import('../js/node_modules/lighthouse/core/config/desktop-config.js');
  const presets = { mobile: undefined, desktop: desktopConfig };
  const ecs = await startFakeEcs('/v4/audit');
  daemons.children.push(ecs.child);
  const fakeEcs = ecs.uri;
  const base = await daemons.start('fargate', ['--sysroot', FARGATE, '--ecs-stats-interval', '1'],
    { ECS_CONTAINER_METADATA_URI_V4: fakeEcs });
  const userDataDir = fs.mkdtempSync(path.join(scratch, 'profile-'));
  const browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, userDataDir, args: CHROMIUM_FLAGS });
  const port = Number(new URL(browser.wsEndpoint()).port);
  const started = Date.now();
  try {
    for (const preset of ['mobile', 'desktop']) await lighthouseAudit(lighthouse, presets, preset, 'first load', `${base}/`, port);
    for (const width of [1920, 375]) {
      const { page, context } = await openAt(browser, `${base}/`, width);
      await page.waitForSelector('#task-table tr[data-container="prometheus"] meter', { timeout: WAIT_MS });
      await axeAudit(page, `${width} px, as loaded (the Task card's table and bars shown)`);
      await context.close();
    }
    const run = await cipherRunFromThePage(browser, base);
    await axeAudit(run.page, '1920 px, after a cipher run started from the page');
    await run.context.close();
    const withRun = `${base}/#run/${encodeURIComponent(run.id)}`;
    {
      const { page, context } = await openAt(browser, withRun, 375);
      await page.waitForSelector('figure[data-chart="cipher-throughput"] canvas', { timeout: WAIT_MS });
      await axeAudit(page, '375 px, the cipher run\'s view');
      await context.close();
    }
    for (const preset of ['mobile', 'desktop']) await lighthouseAudit(lighthouse, presets, preset, 'a cipher run shown', withRun, port);
  } finally {
    await browser.close();
  }
  summary.seconds = Math.round((Date.now() - started) / 1000);
  fs.writeFileSync(path.join(outputDir, 'audits.json'), JSON.stringify(summary, null, 2));
}

main().then(() => {
  for (const failure of failures) console.log(`FAIL ${failure}`);
  console.log(failures.length === 0 ? `all audits passed (${summary.seconds} s)` : `${failures.length} audit check(s) failed`);
  process.exitCode = failures.length === 0 ? 0 : 1;
}, (error) => {
  console.error(error);
  process.exitCode = 1;
}).finally(() => {
  daemons.stopAll();
  fs.rmSync(scratch, { recursive: true, force: true });
});
