// The newest succeeded cipher runs' 8 KiB wall-clock figures over time, one line per cipher.

import { el, clear, byId } from './dom.js';
import { figure, draw, lineSeries } from './chart.js';
import * as format from './format.js';

const BLOCK = 8192;

export function renderHistory(runs) {
  const body = clear(byId('history-body'));
  const points = [];
  for (const run of runs) {
    if (run.probe !== 'cipher' || run.state !== 'succeeded' || !run.result) continue;
    const at = Date.parse(run.finished_at || run.started_at) / 1000;
    for (const measurement of run.result.measurements || []) {
      if (measurement.block_bytes === BLOCK && measurement.threads === run.result.threads) {
        points.push({ at, cipher: measurement.cipher, value: measurement.bytes_per_second / 1e6 });
      }
    }
  }
  if (points.length === 0) {
    body.append(el('p', { className: 'hint', text: 'No succeeded cipher run with 8 KiB blocks yet.' }));
    return;
  }
  const times = [...new Set(points.map((point) => point.at))].sort((a, b) => a - b);
  const ciphers = [...new Set(points.map((point) => point.cipher))];
  const node = figure(body, 'cipher-history', 'Cipher throughput at 8 KiB, wall-clock, run after run',
    '/v1/runs?probe=cipher&state=succeeded');
  draw(node, {
    // One run alone would get a range of years around it: an hour either side instead.
    scales: { x: { time: true, range: () => (times.length === 1 ? [times[0] - 3600, times[0] + 3600] : [times[0], times[times.length - 1]]) } },
    axes: [{ space: 90 }, { label: 'MB/s', size: 60 }],
    series: [{ label: 'finished', value: (_, seconds) => (seconds ? new Date(seconds * 1000).toLocaleString() : '—') },
      ...ciphers.map((cipher, index) => ({ ...lineSeries(cipher, index, (value) => `${format.trim(value)} MB/s`), spanGaps: true, points: { show: true, size: 8 } }))],
  }, [times, ...ciphers.map((cipher) => times.map((at) => {
    const point = points.find((candidate) => candidate.at === at && candidate.cipher === cipher);
    return point ? point.value : null;
  }))]);
}
