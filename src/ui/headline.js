// The answer first: one headline at the top of the page. Its first line is the machine (CPU
// model, hypervisor, CPU budget from GET /v1/host), its second the latest succeeded cipher run's
// wall-clock throughput against its CPU-time one (GET /v1/runs), which is what a task on this
// machine gets against what `openssl speed` would print. Text nodes only, like the rest.

import { el, append, clear, byId, sourceLink } from './dom.js';
import * as format from './format.js';

const HOST = '/v1/host';
const HEADLINE_BLOCK = 8192;
const runUrl = (run) => `/v1/runs/${encodeURIComponent(run.id)}`;

// Redraws only when the words change: the line is a live region, and the host is polled.
function replaceIfChanged(target, parts) {
  const next = el('span', {}, parts);
  if (target.textContent === next.textContent && target.childElementCount === next.childElementCount) return;
  append(clear(target), [...next.childNodes]);
}

function hypervisorText(hypervisor) {
  const vendor = hypervisor.vendor;
  const type = hypervisor.virtualization_type ? ` (${hypervisor.virtualization_type})` : '';
  const platform = hypervisor.platform ? ` on ${hypervisor.platform}` : '';
  if (vendor) return `${vendor}${type}${platform}`;
  if (hypervisor.platform) return hypervisor.platform;
  return 'no hypervisor seen';
}

export function renderHeadlineHost(host) {
  const cpu = host.cpu || {};
  const budget = host.cpu_budget || {};
  const cores = budget.cores;
  replaceIfChanged(byId('headline-host'), [
    el('span', { 'data-field': 'headline-cpu', text: cpu.model_name || 'unknown CPU' }), ' · ',
    el('span', { 'data-field': 'headline-hypervisor', text: hypervisorText(host.hypervisor || {}) }), ' · ',
    el('span', { 'data-field': 'headline-budget' }, 'budget ',
      ...(typeof cores === 'number'
        ? [sourceLink(format.trim(cores), HOST, '/cpu_budget/cores'), cores === 1 ? ' core' : ' cores']
        : ['unknown'])),
  ]);
}

// The newest succeeded cipher run (runs come newest first) with a measurement to show.
export function latestCipherRun(runs) {
  return runs.find((run) => run.probe === 'cipher' && run.state === 'succeeded' && headlineMeasurement(run)) || null;
}

// The 8 KiB cell at the run's own thread count (the history chart's figure), else its largest
// block; the first cipher asked for when there are several.
export function headlineMeasurement(run) {
  const result = run.result || {};
  const all = Array.isArray(result.measurements) ? result.measurements : [];
  const usable = all.filter((cell) => typeof cell.bytes_per_second === 'number' && typeof cell.cpu_bytes_per_second === 'number');
  const atThreads = usable.filter((cell) => cell.threads === result.threads);
  const pool = atThreads.length > 0 ? atThreads : usable;
  if (pool.length === 0) return null;
  const cipher = pool[0].cipher;
  const cells = pool.filter((cell) => cell.cipher === cipher);
  const chosen = cells.find((cell) => cell.block_bytes === HEADLINE_BLOCK) ||
    cells.reduce((largest, cell) => (cell.block_bytes > largest.block_bytes ? cell : largest));
  return { cell: chosen, index: all.indexOf(chosen) };
}

function verdict(result) {
  if (result.throttled === true) return 'throttled';
  if (result.throttled === false) return 'not throttled';
  return null;
}

// run: the latest succeeded cipher run, or null when there is none (yet).
export function renderHeadlineRun(run) {
  const target = byId('headline-run');
  if (!run) {
    replaceIfChanged(target, ['No cipher run yet: start one below to see wall-clock against CPU-time throughput.']);
    return;
  }
  const { cell, index } = headlineMeasurement(run);
  const pointer = `/result/measurements/${index}`;
  const said = verdict(run.result);
  replaceIfChanged(target, [
    el('span', { 'data-field': 'headline-cell', text: `${cell.cipher} ${format.blockSize(cell.block_bytes)}` }), ': ',
    el('span', { 'data-field': 'headline-wall' }, sourceLink(format.throughput(cell.bytes_per_second), runUrl(run), `${pointer}/bytes_per_second`)),
    ' wall-clock vs ',
    el('span', { 'data-field': 'headline-cpu-time' }, sourceLink(format.throughput(cell.cpu_bytes_per_second), runUrl(run), `${pointer}/cpu_bytes_per_second`)),
    ' CPU time',
    said ? [' — ', el('strong', { 'data-field': 'headline-verdict', text: said })] : null,
    ' (', el('a', { href: `#run/${encodeURIComponent(run.id)}`, 'data-field': 'headline-run-link', text: `run ${run.id}` }), ')',
  ]);
}
