// One kind of chart per probe, from a run's result (the shapes of GET /v1/runs/{id}).

import { el, sourceLink } from './dom.js';
import * as format from './format.js';
import { figure, draw, categoryAxis, barSeries, lineSeries, marksPlugin, color, zeroBased } from './chart.js';

const runUrl = (run) => `/v1/runs/${encodeURIComponent(run.id)}`;
const mbps = (value) => `${format.trim(value)} MB/s`;
const micros = (value) => `${format.trim(value)} µs`;

// uPlot leaves a log axis's labels to the caller: every split, numbers in words.
const logValues = (_, splits) => splits.map((value) => (value === null || value === undefined ? '' : format.trim(value)));

function legendless(options) {
  return { legend: { live: true }, cursor: { drag: { x: false, y: false } }, ...options };
}

// The measurements at the run's own thread count (a sweep measures the table at several).
function cipherMeasurements(result) {
  const all = Array.isArray(result.measurements) ? result.measurements : [];
  const threads = result.threads;
  const chosen = all.filter((measurement) => measurement.threads === threads);
  return chosen.length > 0 ? chosen : all;
}

function renderCipher(container, run) {
  const result = run.result;
  const measurements = cipherMeasurements(result);
  const ciphers = [...new Set(measurements.map((measurement) => measurement.cipher))];
  if (result.explanation) {
    container.append(el('p', { className: 'explanation', 'data-field': 'cipher-explanation', text: result.explanation }));
  }
  if (result.wall_to_cpu_ratio !== undefined && result.wall_to_cpu_ratio !== null) {
    container.append(el('p', {}, 'Wall-clock throughput is ',
      sourceLink(format.percent(result.wall_to_cpu_ratio), runUrl(run), '/result/wall_to_cpu_ratio'),
      ' of the CPU-time figure.'));
  }
  const grid = el('div', { className: 'chart-grid' });
  container.append(grid);
  for (const cipher of ciphers) {
    const rows = measurements.filter((measurement) => measurement.cipher === cipher)
      .sort((a, b) => a.block_bytes - b.block_bytes);
    const labels = rows.map((measurement) => format.blockSize(measurement.block_bytes));
    const axis = categoryAxis(labels);
    const node = figure(grid, 'cipher-throughput', `${cipher}: throughput per block size`, runUrl(run));
    node.dataset.cipher = cipher;
    draw(node, legendless({
      scales: { x: axis.scale, y: zeroBased },
      axes: [{ ...axis.axis, label: 'block size' }, { label: 'MB/s', size: 60 }],
      series: [{ label: 'block', value: (_, index) => labels[index] ?? '—' },
        barSeries('wall-clock', 0, 2, mbps), barSeries('CPU time', 1, 2, mbps)],
    }), [rows.map((_, index) => index), rows.map((row) => row.bytes_per_second / 1e6),
      rows.map((row) => (row.cpu_bytes_per_second ?? null) === null ? null : row.cpu_bytes_per_second / 1e6)]);
    node.append(cipherTable(run, rows));
  }
}

function cipherTable(run, rows) {
  const all = run.result.measurements;
  return el('table', { className: 'numbers' },
    el('thead', {}, el('tr', {}, el('th', { scope: 'col', text: 'block' }),
      el('th', { scope: 'col', text: 'wall-clock' }), el('th', { scope: 'col', text: 'CPU time' }))),
    el('tbody', {}, rows.map((row) => {
      const index = all.indexOf(row);
      return el('tr', {}, el('th', { scope: 'row', text: format.blockSize(row.block_bytes) }),
        el('td', {}, sourceLink(format.rate(row.bytes_per_second), runUrl(run), `/result/measurements/${index}/bytes_per_second`)),
        el('td', {}, row.cpu_bytes_per_second === null || row.cpu_bytes_per_second === undefined ? '—'
          : sourceLink(format.rate(row.cpu_bytes_per_second), runUrl(run), `/result/measurements/${index}/cpu_bytes_per_second`)));
    })));
}

const PERCENTILES = [['50.000000', 'p50'], ['99.000000', 'p99'], ['99.900000', 'p99.9']];

function latencyMarks(clat) {
  const percentile = clat.percentile || {};
  return PERCENTILES.filter(([key]) => percentile[key] !== undefined)
    .map(([key, label], index) => ({ key, label, value: percentile[key], color: ['#1a7f37', '#bc4c00', '#d1242f'][index] }));
}

function renderHistogram(container, run, direction) {
  const side = run.result[direction];
  if (!side || !side.clat_ns || !side.clat_ns.bins || side.total_ios === 0) return;
  const clat = side.clat_ns;
  const bins = Object.entries(clat.bins).map(([ns, count]) => [Number(ns), count])
    .filter(([ns]) => ns > 0).sort((a, b) => a[0] - b[0]);
  if (bins.length === 0) return;
  const marks = latencyMarks(clat);
  const node = figure(container, 'disk-histogram', `${direction}: completion latency (log axis)`, runUrl(run));
  node.dataset.direction = direction;
  draw(node, legendless({
    plugins: [marksPlugin(marks.map((mark) => ({ ...mark, value: mark.value })))],
    scales: { x: { time: false, distr: 3 }, y: { distr: 3 } },
    axes: [{ label: 'completion latency', values: (_, splits) => splits.map((ns) => format.nanoseconds(ns)), size: 40 },
      { label: 'I/Os', size: 60, values: logValues }],
    series: [{ label: 'latency', value: (_, ns) => format.nanoseconds(ns) },
      lineSeries(`${direction} I/Os`, direction === 'read' ? 0 : 1, format.trim)],
  }), [bins.map(([ns]) => ns), bins.map(([, count]) => count)]);
  node.append(el('ul', { className: 'marks' }, marks.map((mark, index) => el('li', { 'data-mark': mark.label },
    `${mark.label} `, sourceLink(format.nanoseconds(mark.value), runUrl(run), `/result/${direction}/clat_ns/percentile/${mark.key}`)))));
}

function renderIops(container, run) {
  const result = run.result;
  // A time-based run's last entry is the part second after the runtime: left out.
  const within = Math.ceil(result.runtime_seconds || Infinity);
  const iops = (Array.isArray(result.iops_series) ? result.iops_series : []).slice(0, within);
  if (iops.length === 0) return;
  const seconds = iops.map((_, index) => index + 1);
  const p99 = (direction) => {
    const series = result[direction] && result[direction].clat_p99_series_ns;
    return Array.isArray(series) ? seconds.map((_, index) => (series[index] ?? null) === null ? null : series[index] / 1000) : null;
  };
  const series = [{ label: 'second' }, lineSeries('IOPS', 0, format.trim, 'iops')];
  const data = [seconds, iops];
  for (const [index, direction] of ['read', 'write'].entries()) {
    const values = p99(direction);
    if (values && values.some((value) => value !== null)) {
      series.push({ ...lineSeries(`${direction} p99`, index + 2, micros, 'us'), dash: [5, 4] });
      data.push(values);
    }
  }
  const node = figure(container, 'disk-iops', 'I/Os completed each second, and each second\'s p99', runUrl(run));
  draw(node, legendless({
    scales: { x: { time: false }, iops: {}, us: {} },
    axes: [{ label: 'second of the run' }, { scale: 'iops', label: 'IOPS', size: 70 },
      { scale: 'us', side: 1, label: 'p99 µs', grid: { show: false }, size: 60 }],
    series,
  }), data);
}

function renderDisk(container, run) {
  const result = run.result;
  container.append(el('p', {}, ['read', 'write'].filter((direction) => result[direction] && result[direction].total_ios > 0)
    .map((direction) => [`${direction}: `, sourceLink(`${format.trim(result[direction].iops)} IOPS`, runUrl(run), `/result/${direction}/iops`),
      ', ', sourceLink(`${format.bytes(result[direction].bw_bytes)}/s`, runUrl(run), `/result/${direction}/bw_bytes`), '. '])));
  const grid = el('div', { className: 'chart-grid' });
  container.append(grid);
  renderHistogram(grid, run, 'read');
  renderHistogram(grid, run, 'write');
  renderIops(container, run);
}

const FILE_PERCENTILES = [['50.000000', 'p50'], ['90.000000', 'p90'], ['99.000000', 'p99'], ['99.900000', 'p99.9']];

function renderFiles(container, run) {
  const ops = run.result.ops || {};
  const names = Object.keys(ops);
  const labels = FILE_PERCENTILES.map(([, label]) => label);
  const axis = categoryAxis(labels);
  const node = figure(container, 'files-latency', 'Latency percentiles of each operation (log axis)', runUrl(run));
  draw(node, legendless({
    scales: { x: axis.scale, y: { distr: 3 } },
    axes: [axis.axis, { label: 'µs', size: 60, values: logValues }],
    series: [{ label: 'percentile', value: (_, index) => labels[index] ?? '—' },
      ...names.map((name, index) => lineSeries(name, index, micros))],
  }), [labels.map((_, index) => index), ...names.map((name) => FILE_PERCENTILES.map(([key]) => {
    const value = ((ops[name].lat_ns || {}).percentile || {})[key];
    return value === undefined ? null : value / 1000;
  }))]);
  node.append(el('ul', { className: 'marks' }, names.map((name) => el('li', {}, `${name}: `,
    sourceLink(`${format.trim(ops[name].ops_per_second)} ops/s`, runUrl(run), `/result/ops/${name}/ops_per_second`)))));
}

function renderSystem(container, run) {
  const result = run.result;
  const tests = Array.isArray(result.tests) ? result.tests : [];
  const copies = (Array.isArray(result.copies) ? result.copies : []).slice(0, 2);
  const names = [...new Set(tests.map((test) => test.name))];
  const index = result.index || {};
  container.append(el('p', { className: 'score' }, 'Index score: ', Object.entries(index).map(([count, score], position) => [
    position > 0 ? ', ' : '', `${count} ${count === '1' ? 'copy' : 'copies'} `,
    sourceLink(format.trim(score), runUrl(run), `/result/index/${count}`)]),
  result.index_partial ? ' (from a subset of the tests: not comparable with a full index)' : '',
  result.unixbench_version ? `; on UnixBench ${result.unixbench_version}'s scale` : ''));
  // Why syscall, pipe and context-switch rates differ between hosts of one CPU.
  const mitigations = result.cpu_mitigations_costing_syscalls;
  if (Array.isArray(mitigations)) {
    container.append(el('p', {}, 'Kernel mitigations paid on every system call: ',
      mitigations.length === 0 ? 'none' : mitigations.map((m) => `${m.mitigation} (${m.name})`).join(', ')));
  }
  const axis = categoryAxis(names);
  const node = figure(container, 'system-index', 'Index of each test, 1 copy and the budget\'s copies', runUrl(run));
  draw(node, legendless({
    scales: { x: axis.scale, y: zeroBased },
    axes: [axis.axis, { label: 'index', size: 60 }],
    series: [{ label: 'test', value: (_, position) => names[position] ?? '—' },
      ...copies.map((count, position) => barSeries(`${count} ${count === 1 ? 'copy' : 'copies'}`, position, copies.length, format.trim))],
  }), [names.map((_, position) => position), ...copies.map((count) => names.map((name) => {
    const test = tests.find((candidate) => candidate.name === name && candidate.copies === count);
    return test && test.index !== undefined ? test.index : null;
  }))]);
}

const RENDERERS = { cipher: renderCipher, disk: renderDisk, files: renderFiles, system: renderSystem };

export function renderResult(container, run) {
  const renderer = RENDERERS[run.probe];
  if (!renderer || !run.result) return false;
  renderer(container, run);
  return true;
}

export { color };
