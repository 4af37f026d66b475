// The host card from GET /v1/host, and the live throttling counters with the throttled share
// since the page was opened.

import { el, append, clear, byId, sourceLink } from './dom.js';
import * as format from './format.js';

const HOST = '/v1/host';

function row(term, ...values) {
  const present = values.flat().filter((value) => value !== null && value !== undefined && value !== '' && value !== false);
  if (present.length === 0) return null;
  return [el('dt', { text: term }), el('dd', {}, present)];
}

function num(text, pointer) {
  return sourceLink(text, HOST, pointer);
}

function group(title, rows) {
  const items = rows.filter(Boolean);
  if (items.length === 0) return null;
  return el('div', { className: 'host-group' }, el('h3', { text: title }), el('dl', {}, items));
}

function cpuGroup(host) {
  const cpu = host.cpu || {};
  const guess = host.guess || {};
  const hypervisor = host.hypervisor || {};
  const families = Array.isArray(guess.ec2_families) ? guess.ec2_families : [];
  return group('Processor', [
    row('Model', cpu.model_name && el('span', { 'data-field': 'model', text: cpu.model_name })),
    row('Vendor', cpu.vendor_id),
    row('Microarchitecture', guess.microarchitecture && el('span', { 'data-field': 'microarchitecture', text: guess.microarchitecture })),
    row('Codename', guess.codename),
    row('Graviton generation', guess.graviton !== null && guess.graviton !== undefined &&
      (typeof guess.graviton === 'object' ? JSON.stringify(guess.graviton) : String(guess.graviton))),
    row('Architecture', cpu.architecture),
    row('Family / model / stepping', cpu.family !== undefined &&
      [num(String(cpu.family), '/cpu/family'), ' / ', num(String(cpu.model), '/cpu/model'), ' / ', num(String(cpu.stepping), '/cpu/stepping')]),
    row('Clock', cpu.mhz && num(`${format.trim(cpu.mhz)} MHz`, '/cpu/mhz')),
    row('Hypervisor', [hypervisor.vendor, hypervisor.virtualization_type && ` (${hypervisor.virtualization_type})`]),
    row('Platform', hypervisor.platform),
    row('EC2 instance type', hypervisor.ec2_instance_type),
    row('EC2 families (a guess)', families.length > 0 &&
      el('span', { className: 'guess', 'data-field': 'ec2-families' }, 'guess: ', families.join(', '))),
    row('Notes', Array.isArray(guess.notes) && guess.notes.length > 0 &&
      el('ul', { className: 'notes' }, guess.notes.map((note) => el('li', { text: note })))),
  ]);
}

function topologyGroup(host) {
  const topology = host.topology || {};
  const caches = Array.isArray(host.caches) ? host.caches : [];
  return group('Topology and caches', [
    row('CPUs', topology.cpus !== undefined && num(String(topology.cpus), '/topology/cpus'),
      topology.online_list && ` (online ${topology.online_list})`),
    row('Sockets × cores × threads', topology.sockets !== undefined && [
      num(String(topology.sockets), '/topology/sockets'), ' × ',
      num(String(topology.cores_per_socket), '/topology/cores_per_socket'), ' × ',
      num(String(topology.threads_per_core), '/topology/threads_per_core')]),
    row('NUMA nodes', topology.numa_nodes !== undefined && num(String(topology.numa_nodes), '/topology/numa_nodes')),
    ...caches.map((cache, index) => row(`${cache.name || `L${cache.level}`} cache`,
      num(format.bytes(cache.size_bytes), `/caches/${index}/size_bytes`),
      cache.instances > 1 ? ` × ${cache.instances}` : '')),
  ]);
}

function limitsGroup(host) {
  const cgroup = host.cgroup || {};
  const budget = host.cpu_budget || {};
  const cost = host.cost;
  return group('Limits and CPU budget', [
    row('CPU quota', cgroup.cpu_quota_cores !== null && cgroup.cpu_quota_cores !== undefined
      ? el('span', { 'data-field': 'quota' }, num(`${cgroup.cpu_quota_cores}`, '/cgroup/cpu_quota_cores'), ' cores')
      : 'none'),
    row('Memory limit', cgroup.memory_limit_bytes ? num(format.bytes(cgroup.memory_limit_bytes), '/cgroup/memory_limit_bytes') : 'none'),
    row('cgroup', cgroup.version !== undefined && `v${cgroup.version}`, cgroup.cpuset && `, cpuset ${cgroup.cpuset}`),
    row('Budget cores', budget.cores !== undefined && num(String(budget.cores), '/cpu_budget/cores')),
    row('Budget workers', budget.workers !== undefined &&
      el('span', { 'data-field': 'workers' }, num(String(budget.workers), '/cpu_budget/workers'))),
    row('Visible CPUs', budget.visible_cpus !== undefined && num(String(budget.visible_cpus), '/cpu_budget/visible_cpus')),
    row('Budget source', budget.source),
    row('Cost', cost && cost.dollars_per_hour !== undefined &&
      [num(`$${cost.dollars_per_hour.toFixed(4)}`, '/cost/dollars_per_hour'), ' per hour',
        ` (${cost.vcpus} vCPU, ${cost.memory_gib} GiB, from ${cost.source})`]),
  ]);
}

function ecsGroup(host) {
  const ecs = host.ecs;
  if (!ecs || typeof ecs !== 'object') return null;
  const rows = [];
  for (const [key, value] of Object.entries(ecs)) {
    if (value === null || typeof value === 'object') continue;
    rows.push(row(key.replaceAll('_', ' '), typeof value === 'number' ? num(format.trim(value), `/ecs/${key}`) : String(value)));
  }
  return group('ECS task', rows);
}

export function renderHost(host) {
  const card = clear(byId('host-card'));
  append(card, [cpuGroup(host), topologyGroup(host), limitsGroup(host), ecsGroup(host)]);
  const warnings = Array.isArray(host.warnings) ? host.warnings : [];
  if (warnings.length > 0) {
    card.append(el('div', { className: 'warnings', role: 'note' }, el('h3', { text: 'Warnings' }),
      el('ul', {}, warnings.map((warning) => el('li', { text: warning })))));
  }
}

// Keeps the first counters seen, so the share shown is the one since the page opened.
export class ThrottlingWatch {
  constructor() {
    this.first = null;
  }

  update(host) {
    const counters = (host.live && host.live.throttling) || null;
    const target = clear(byId('throttling'));
    if (!counters) {
      target.append(el('p', { text: 'No CPU controller counters on this host (no cgroup quota to be throttled by).' }));
      return;
    }
    if (!this.first) this.first = { ...counters, at: Date.now() };
    const periods = counters.periods_total - this.first.periods_total;
    const throttled = counters.throttled_periods_total - this.first.throttled_periods_total;
    const share = periods > 0 ? throttled / periods : null;
    const rates = host.live.rates || {};
    target.append(el('dl', { className: 'inline' },
      row('Periods', num(format.trim(counters.periods_total), '/live/throttling/periods_total')),
      row('Throttled periods', num(format.trim(counters.throttled_periods_total), '/live/throttling/throttled_periods_total')),
      row('Throttled time', num(format.seconds(counters.throttled_seconds_total), '/live/throttling/throttled_seconds_total')),
      row('Throttled since this page opened', el('span', { 'data-field': 'throttled-share' },
        share === null ? `no period ended yet (${throttled} throttled)` : `${format.percent(share)} of ${format.trim(periods)} periods`)),
      row('CPU used now', rates.cpu_cores_used !== undefined &&
        [num(`${format.trim(rates.cpu_cores_used)} cores`, '/live/rates/cpu_cores_used'),
          rates.budget_used_ratio !== undefined && ` (${format.percent(rates.budget_used_ratio)} of the budget)`]),
    ));
  }
}
