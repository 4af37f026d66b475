// The ECS task card from GET /v1/host's live.task (refreshed with the host card, every 10 s):
// one bar per container of the cores it used against the task's CPU limit and one of its memory
// working set against its limit, its network and block I/O, processes, page faults and image, the task's CPU saturation over the last minute (derived: ECS's
// own throttling_data stays 0) beside this sidecar's own throttling, and the warnings.

import { el, clear, byId, sourceLink } from './dom.js';
import * as format from './format.js';

const HOST = '/v1/host';

function num(text, pointer) {
  return sourceLink(text, HOST, `/live/task${pointer}`);
}

function present(value) {
  return value !== null && value !== undefined;
}

// A <meter> with its numbers beside it: the bar for the eye, the text for everyone.
function bar(label, value, max, text, field) {
  const meter = el('meter', { min: 0, max, value: Math.min(value, max), high: max * 0.9, 'aria-label': label });
  return el('span', { className: 'task-bar', 'data-field': field }, meter, ' ', text);
}

function cpuCell(task, container, index, fallbackMax) {
  if (!present(container.cpu_cores)) return el('span', { className: 'muted', text: container.running ? 'no rate yet' : '—' });
  const max = task.cpu_limit_cores || fallbackMax;
  const limitText = task.cpu_limit_cores ? ` of ${format.trim(task.cpu_limit_cores)} vCPU` : ' cores';
  return bar(`${container.name}: cores used${limitText}`, container.cpu_cores, max,
    [num(format.trim(container.cpu_cores), `/containers/${index}/cpu_cores`), limitText],
    'container-cpu');
}

function memoryCell(container, index) {
  if (!present(container.memory_working_set_bytes)) return el('span', { className: 'muted', text: '—' });
  const used = num(format.bytes(container.memory_working_set_bytes), `/containers/${index}/memory_working_set_bytes`);
  if (!present(container.memory_limit_bytes)) return used;
  return bar(`${container.name}: memory working set of its limit`, container.memory_working_set_bytes,
    container.memory_limit_bytes,
    [used, ` of ${format.bytes(container.memory_limit_bytes)} (${format.percent(container.memory_limit_used_ratio)})`],
    'container-memory');
}

// Bytes received and sent over the container's interfaces (awsvpc: the task's ENI), and read
// and written on block devices, since it started.
function ioCell(container, index) {
  const networks = Array.isArray(container.networks) ? container.networks : [];
  const parts = networks.map((network, n) => [
    `${network.interface} `,
    num(`↓ ${format.bytes(network.receive_bytes)}`, `/containers/${index}/networks/${n}/receive_bytes`), ' ',
    num(`↑ ${format.bytes(network.transmit_bytes)}`, `/containers/${index}/networks/${n}/transmit_bytes`), ' ']);
  if (present(container.blkio_read_bytes)) {
    parts.push(['disk ', num(`read ${format.bytes(container.blkio_read_bytes)}`, `/containers/${index}/blkio_read_bytes`), ' ',
      num(`written ${format.bytes(container.blkio_write_bytes)}`, `/containers/${index}/blkio_write_bytes`)]);
  }
  return parts.length > 0 ? el('span', { 'data-field': 'container-io' }, parts) : el('span', { className: 'muted', text: '—' });
}

function otherCell(container) {
  const parts = [];
  if (present(container.pids)) parts.push(`${format.trim(container.pids)} processes`);
  if (present(container.page_faults)) parts.push(`${format.trim(container.page_faults)} page faults (${format.trim(container.major_page_faults)} major)`);
  if (present(container.memory_cache_bytes)) parts.push(`cache ${format.bytes(container.memory_cache_bytes)}`);
  if (container.image) parts.push(container.image);
  return el('span', { 'data-field': 'container-other', text: parts.join(' · ') || '—' });
}

function stateText(container) {
  const parts = [container.known_status || (container.running ? 'running' : 'not running')];
  if (container.health_status) parts.push(container.health_status.toLowerCase());
  if (present(container.exit_code)) parts.push(`exit ${container.exit_code}`);
  if (present(container.restart_count) && container.restart_count > 0) parts.push(`${container.restart_count} restarts`);
  return parts.join(', ');
}

function containerRows(task, fallbackMax) {
  const containers = Array.isArray(task.containers) ? task.containers : [];
  return containers.map((container, index) => el('tr', { className: container.running ? '' : 'stopped', 'data-container': container.name },
    el('th', { scope: 'row', text: container.name }),
    el('td', { 'data-field': 'container-state', text: stateText(container) }),
    el('td', {}, cpuCell(task, container, index, fallbackMax)),
    el('td', {}, memoryCell(container, index)),
    el('td', {}, ioCell(container, index)),
    el('td', {}, otherCell(container))));
}

function summary(task, host) {
  const saturation = task.cpu_saturation || {};
  const throttling = host.live && host.live.throttling;
  const rows = [
    ['CPU used', present(task.cpu_cores_used)
      ? [el('span', { 'data-field': 'task-cpu' }, num(format.trim(task.cpu_cores_used), '/cpu_cores_used'),
        task.cpu_limit_cores ? ` of ${format.trim(task.cpu_limit_cores)} vCPU (${format.percent(task.cpu_limit_used_ratio)})` : ' cores (no task CPU limit)')]
      : 'no rate yet'],
    ['CPU-saturated, last minute', el('span', { 'data-field': 'task-saturation' },
      present(saturation.ratio) ? [num(format.percent(saturation.ratio), '/cpu_saturation/ratio'),
        ` of ${format.seconds(saturation.covered_seconds)} at ≥ 95% of the limit`]
        : task.cpu_limit_cores ? 'not enough readings yet' : 'no task CPU limit')],
    ['This sidecar throttled', throttling
      ? `${format.trim(throttling.throttled_periods_total)} of ${format.trim(throttling.periods_total)} periods (its own cgroup)`
      : 'no CFS counters'],
    ['Memory working set', present(task.memory_working_set_bytes)
      ? [num(format.bytes(task.memory_working_set_bytes), '/memory_working_set_bytes'),
        present(task.memory_limit_bytes) ? ` of ${format.bytes(task.memory_limit_bytes)}` : '']
      : '—'],
    ['Read', task.read_at ? format.time(task.read_at) : '—'],
  ];
  return el('dl', { className: 'inline' }, rows.map(([term, value]) => [el('dt', { text: term }), el('dd', {}, value)]));
}

export function renderTask(host) {
  const target = clear(byId('task-card'));
  const task = host.live && host.live.task;
  if (!task || typeof task !== 'object') {
    target.append(el('p', { 'data-field': 'task-absent',
      text: 'Not in an ECS task, or its stats not read yet. As a sidecar, hostprobe shows every container of its task here: CPU against the task\'s limit, memory against each limit.' }));
    return;
  }
  const cpus = (host.topology && host.topology.cpus) || 1;
  target.append(summary(task, host));
  target.append(el('div', { className: 'table-wrap', role: 'region', tabindex: '0', 'aria-label': 'Containers of the task' },
    el('table', { id: 'task-table' },
      el('caption', { className: 'visually-hidden', text: 'Containers of the ECS task, in /task order' }),
      el('thead', {}, el('tr', {},
        el('th', { scope: 'col', text: 'Container' }), el('th', { scope: 'col', text: 'State' }),
        el('th', { scope: 'col', text: 'CPU' }), el('th', { scope: 'col', text: 'Memory' }),
        el('th', { scope: 'col', text: 'Network and disk' }), el('th', { scope: 'col', text: 'Processes, faults, image' }))),
      el('tbody', {}, containerRows(task, cpus)))));
  const warnings = Array.isArray(task.warnings) ? task.warnings : [];
  if (warnings.length > 0) {
    target.append(el('div', { className: 'warnings', role: 'note' }, el('h3', { text: 'Task warnings' }),
      el('ul', { 'data-field': 'task-warnings' }, warnings.map((warning) => el('li', { text: warning })))));
  }
}
