// Two runs of one probe on one chart (before/after a change of instance type or task size):
// each probe's headline figures, labelled alike so that the two runs line up.

import { figure, draw, categoryAxis, barSeries, zeroBased } from './chart.js';
import * as format from './format.js';

function cipherFigures(result) {
  const figures = new Map();
  for (const measurement of result.measurements || []) {
    if (measurement.threads !== result.threads) continue;
    figures.set(`${measurement.cipher} ${format.blockSize(measurement.block_bytes)}`, measurement.bytes_per_second / 1e6);
  }
  return { unit: 'MB/s (wall-clock)', figures };
}

function diskFigures(result) {
  const figures = new Map();
  for (const direction of ['read', 'write']) {
    const side = result[direction];
    if (!side || !side.total_ios) continue;
    const percentile = (side.clat_ns || {}).percentile || {};
    for (const [key, label] of [['50.000000', 'p50'], ['99.000000', 'p99'], ['99.900000', 'p99.9']]) {
      if (percentile[key] !== undefined) figures.set(`${direction} ${label}`, percentile[key] / 1000);
    }
  }
  return { unit: 'µs completion latency', figures };
}

function filesFigures(result) {
  const figures = new Map();
  for (const [name, op] of Object.entries(result.ops || {})) {
    const percentile = (op.lat_ns || {}).percentile || {};
    for (const [key, label] of [['50.000000', 'p50'], ['99.000000', 'p99']]) {
      if (percentile[key] !== undefined) figures.set(`${name} ${label}`, percentile[key] / 1000);
    }
  }
  return { unit: 'µs latency', figures };
}

function systemFigures(result) {
  const figures = new Map();
  for (const test of result.tests || []) {
    if (test.index !== undefined && test.index !== null) figures.set(`${test.name} ×${test.copies}`, test.index);
  }
  for (const [copies, score] of Object.entries(result.index || {})) figures.set(`score ×${copies}`, score);
  return { unit: 'index', figures };
}

const FIGURES = { cipher: cipherFigures, disk: diskFigures, files: filesFigures, system: systemFigures };

export function canCompare(probe) {
  return probe in FIGURES;
}

export function renderComparison(container, first, second) {
  const extract = FIGURES[first.probe];
  const a = extract(first.result);
  const b = extract(second.result);
  const labels = [...new Set([...a.figures.keys(), ...b.figures.keys()])];
  const axis = categoryAxis(labels);
  const node = figure(container, 'compare', `Run ${first.id} against run ${second.id}: ${a.unit}`,
    `/v1/runs/${encodeURIComponent(second.id)}`);
  draw(node, {
    scales: { x: axis.scale, y: zeroBased },
    axes: [{ ...axis.axis, rotate: labels.length > 6 ? -30 : 0, size: labels.length > 6 ? 80 : 40 }, { label: a.unit, size: 60 }],
    series: [{ label: 'figure', value: (_, index) => labels[index] ?? '—' },
      barSeries(`run ${first.id}`, 0, 2, format.trim), barSeries(`run ${second.id}`, 1, 2, format.trim)],
  }, [labels.map((_, index) => index), labels.map((label) => a.figures.get(label) ?? null),
    labels.map((label) => b.figures.get(label) ?? null)]);
}
