// The runs list (state, trigger, start, duration, progress, cancel) and the view of one run.

import { el, append, clear, byId, sourceLink } from './dom.js';
import { request } from './api.js';
import * as format from './format.js';
import { renderResult } from './probe_charts.js';
import { canCompare, renderComparison } from './compare.js';

export const isActive = (run) => run.state === 'queued' || run.state === 'running';
const runUrl = (run) => `/v1/runs/${encodeURIComponent(run.id)}`;

function duration(run) {
  if (!run.started_at) return null;
  const end = run.finished_at ? Date.parse(run.finished_at) : Date.now();
  return (end - Date.parse(run.started_at)) / 1000;
}

function progressBar(run) {
  const value = typeof run.progress === 'number' ? run.progress : 0;
  return el('progress', { max: '1', value: String(value), 'aria-label': `run ${run.id} progress`,
    title: format.percent(value) });
}

async function cancel(run, status, onChange) {
  try {
    const answer = await request('DELETE', runUrl(run));
    status.textContent = `Run ${run.id} is ${answer.state}.`;
  } catch (error) {
    status.textContent = error.message;
  }
  onChange();
}

function cancelButton(run, status, onChange) {
  return el('button', { type: 'button', className: 'cancel', 'data-action': 'cancel',
    'aria-label': `Cancel run ${run.id}`, text: 'Cancel', onclick: () => cancel(run, status, onChange) });
}

export function renderRunsTable(runs, onChange) {
  const body = clear(byId('runs-table').tBodies[0]);
  const status = byId('runs-status');
  if (runs.length === 0) {
    body.append(el('tr', {}, el('td', { colspan: '8', text: 'No runs yet: start one above.' })));
    return;
  }
  for (const run of runs) {
    const seconds = duration(run);
    body.append(el('tr', { 'data-run-id': run.id, 'data-state': run.state },
      el('td', {}, el('a', { href: `#run/${encodeURIComponent(run.id)}`, text: run.id })),
      el('td', { text: run.probe }),
      el('td', {}, el('span', { className: `state state-${run.state}`, text: run.state })),
      el('td', { text: run.trigger }),
      el('td', { text: format.time(run.started_at || run.created_at) }),
      el('td', {}, seconds === null ? '—' : sourceLink(format.seconds(seconds), runUrl(run), '/started_at')),
      el('td', {}, isActive(run) ? progressBar(run) : sourceLink(format.percent(run.progress), runUrl(run), '/progress')),
      el('td', {}, isActive(run) ? cancelButton(run, status, onChange) : null)));
  }
}

function detailList(run) {
  const seconds = duration(run);
  return el('dl', { className: 'inline' },
    el('dt', { text: 'Probe' }), el('dd', { text: run.probe }),
    el('dt', { text: 'State' }), el('dd', {}, el('span', { className: `state state-${run.state}`, 'data-field': 'run-state', text: run.state })),
    el('dt', { text: 'Trigger' }), el('dd', { text: run.trigger }),
    el('dt', { text: 'Created' }), el('dd', { text: format.time(run.created_at) }),
    el('dt', { text: 'Duration' }), el('dd', {}, seconds === null ? '—' : sourceLink(format.seconds(seconds), runUrl(run), '/finished_at')),
    el('dt', { text: 'Parameters' }), el('dd', {}, el('code', { text: JSON.stringify(run.params) })));
}

function comparePicker(run, others, container) {
  const candidates = others.filter((other) => other.id !== run.id && other.probe === run.probe && other.state === 'succeeded' && other.result);
  if (!canCompare(run.probe) || candidates.length === 0) return null;
  const target = el('div', { className: 'compare-target' });
  const select = el('select', { id: 'compare-select' },
    el('option', { value: '', text: 'none' }),
    candidates.map((other) => el('option', { value: other.id, text: `${other.id} (${format.time(other.finished_at)})` })));
  select.addEventListener('change', () => {
    clear(target);
    const other = candidates.find((candidate) => candidate.id === select.value);
    if (other) renderComparison(target, run, other);
  });
  container.append(el('div', { className: 'compare' },
    el('label', { for: 'compare-select', text: `Compare with another ${run.probe} run: ` }), select), target);
  return select;
}

// Renders the run; the charts are drawn once the run has finished.
export function renderRunView(run, others, onChange) {
  const section = byId('run-view');
  section.hidden = false;
  byId('run-title').textContent = `Run ${run.id}`;
  const body = clear(byId('run-body'));
  const status = el('p', { className: 'status', role: 'status' });
  append(body, [
    el('p', { className: 'links' }, el('a', { href: runUrl(run), text: 'JSON' }), ' · ',
      el('a', { href: `${runUrl(run)}?format=text`, text: 'text report' })),
    detailList(run),
    isActive(run) ? el('p', {}, progressBar(run), ' ', cancelButton(run, status, onChange)) : null,
    status,
    run.error ? el('p', { className: 'error', role: 'alert', text: run.error }) : null]);
  if (run.state === 'succeeded' || run.state === 'cancelled' || run.state === 'failed') {
    if (run.result && run.result.partial) {
      body.append(el('p', { className: 'hint', text: 'A partial result: the run stopped before it measured everything it was asked to.' }));
    }
    const charts = el('div', { className: 'charts' });
    body.append(charts);
    renderResult(charts, run);
    comparePicker(run, others, body);
  }
}

export function hideRunView() {
  byId('run-view').hidden = true;
  clear(byId('run-body'));
}
