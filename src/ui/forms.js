// One "start a run" form per probe, generated from the probe's parameter table in
// GET /v1/probes: a new probe or parameter appears with no change here. The browser's own
// range checks are off (novalidate) so that the agent's 400 answer, in its words, is what shows.

import { el, byId, clear } from './dom.js';
import { request } from './api.js';

const fieldId = (probe, param) => `param-${probe}-${param}`;

function describe(param) {
  const limits = [];
  if (param.min !== undefined && param.max !== undefined) limits.push(`${param.min} to ${param.max}`);
  if (param.unit) limits.push(param.unit);
  if (param.max_items !== undefined) limits.push(`at most ${param.max_items} items`);
  return `${param.description || ''}${limits.length ? ` (${limits.join(', ')})` : ''}`;
}

function defaultText(value) {
  if (Array.isArray(value)) return value.join(',');
  if (value === null || value === undefined) return '';
  return String(value);
}

function choiceListInput(probe, param) {
  const defaults = new Set(Array.isArray(param.default) ? param.default : []);
  return el('div', { className: 'choices', role: 'group', 'aria-labelledby': `${fieldId(probe, param.name)}-label` },
    param.choices.map((choice) => el('label', { className: 'choice' },
      el('input', { type: 'checkbox', name: param.name, value: choice, checked: defaults.has(choice) }), ` ${choice}`)));
}

function scalarInput(probe, param, describedBy) {
  const common = { id: fieldId(probe, param.name), name: param.name, 'aria-describedby': describedBy };
  if (param.type === 'boolean') return el('input', { ...common, type: 'checkbox', checked: param.default === true });
  if (param.type === 'choice') {
    const choices = param.choices;
    return el('select', common, choices.map((choice) =>
      el('option', { value: choice, selected: choice === param.default, text: choice })));
  }
  if (param.type === 'integer' || param.type === 'number') {
    return el('input', { ...common, type: 'number', inputmode: param.type === 'integer' ? 'numeric' : 'decimal',
      step: param.type === 'integer' ? '1' : 'any', min: param.min, max: param.max, value: defaultText(param.default) });
  }
  const directory = param.name === 'directory';
  return el('input', { ...common, type: 'text', value: defaultText(param.default), spellcheck: 'false',
    autocomplete: 'off', placeholder: directory ? 'an allowed --disk-dir directory' : null,
    list: directory ? `${fieldId(probe, param.name)}-known` : null });
}

function paramField(probe, param) {
  const id = fieldId(probe, param.name);
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const input = param.type === 'choice list' && Array.isArray(param.choices)
    ? choiceListInput(probe, param)
    : scalarInput(probe, param, `${hintId} ${errorId}`);
  const label = param.type === 'choice list'
    ? el('span', { id: `${id}-label`, className: 'label', text: param.name })
    : el('label', { for: id, className: 'label', text: param.name });
  return el('div', { className: 'field', 'data-param': param.name },
    label, input,
    param.name === 'directory' ? directoryList(id, param) : null,
    el('small', { id: hintId, className: 'hint', text: describe(param) }),
    el('p', { id: errorId, className: 'field-error', 'aria-live': 'polite', hidden: true }));
}

function parseList(text) {
  return text.split(',').map((part) => part.trim()).filter(Boolean)
    .map((part) => (/^-?\d+(\.\d+)?$/.test(part) ? Number(part) : part));
}

// Turns one field's text into the JSON value the probe's type asks for; the agent checks it.
function valueOf(form, param) {
  if (param.type === 'choice list') {
    return [...form.querySelectorAll(`input[name="${CSS.escape(param.name)}"]:checked`)].map((box) => box.value);
  }
  const input = form.elements.namedItem(param.name);
  if (param.type === 'boolean') return input.checked;
  const text = input.value.trim();
  if (text === '') return undefined;
  if (param.type === 'integer' || param.type === 'number') return Number(text);
  if (param.type === 'string' || param.type === 'choice') return text;
  if (text.includes(',')) return parseList(text);
  if (/^-?\d+(\.\d+)?$/.test(text)) {
    const number = Number(text);
    const listOnly = /list/.test(param.type) && !/integer or|, integer/.test(param.type);
    return listOnly ? [number] : number;
  }
  return text;
}

function clearErrors(form) {
  for (const error of form.querySelectorAll('.field-error')) {
    error.hidden = true;
    error.textContent = '';
  }
  for (const input of form.querySelectorAll('[aria-invalid]')) input.removeAttribute('aria-invalid');
}

// The agent names the parameter in quotes ('seconds' is 99; ...): its message goes under it.
function showError(form, probe, error) {
  const status = form.querySelector('.form-status');
  status.textContent = error.message;
  status.className = 'form-status error';
  const named = /'([a-z_]+)'/.exec(error.serverMessage || '');
  const field = named && form.querySelector(`.field[data-param="${CSS.escape(named[1])}"]`);
  if (!field) return;
  const message = field.querySelector('.field-error');
  message.textContent = error.message;
  message.hidden = false;
  const input = field.querySelector('input, select');
  if (input) input.setAttribute('aria-invalid', 'true');
}

export function renderProbeForms(probes, onStarted) {
  const container = clear(byId('probe-forms'));
  for (const probe of probes) {
    const status = el('p', { className: 'form-status', role: 'status' });
    const form = el('form', { className: 'probe-form', novalidate: true, 'data-probe': probe.name },
      el('p', { className: 'hint', text: probe.description }),
      el('div', { className: 'fields' }, probe.params.map((param) => paramField(probe.name, param))),
      el('div', { className: 'form-actions' },
        el('button', { type: 'submit', text: `Start ${probe.name}` }), status));
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      clearErrors(form);
      const params = {};
      for (const param of probe.params) {
        const value = valueOf(form, param);
        if (value !== undefined) params[param.name] = value;
      }
      status.textContent = 'Starting …';
      status.className = 'form-status';
      try {
        const run = await request('POST', '/v1/runs', { probe: probe.name, params });
        status.textContent = `Started run ${run.id} (${run.state}).`;
        onStarted(run);
      } catch (error) {
        showError(form, probe.name, error);
      }
    });
    container.append(el('details', { className: 'probe', 'data-probe': probe.name, open: probe.name === 'cipher' },
      el('summary', {}, el('span', { className: 'probe-name', text: probe.name }),
        probe.exclusive ? el('span', { className: 'badge', text: 'runs alone' }) : null),
      form));
  }
}

// The allowed directories (/v1/probes lists them as the parameter's examples) are offered, and
// so are the directories of runs that succeeded (subdirectories people used); the agent decides.
function directoryList(id, param) {
  const allowed = Array.isArray(param.examples) ? param.examples.map(String) : [];
  return el('datalist', { id: `${id}-known`, className: 'known-directories', 'data-allowed': JSON.stringify(allowed) },
    allowed.map((directory) => el('option', { value: directory })));
}

export function offerDirectories(directories) {
  for (const list of document.querySelectorAll('datalist.known-directories')) {
    const offered = [...new Set([...JSON.parse(list.dataset.allowed || '[]'), ...directories])];
    const current = [...list.options].map((option) => option.value).join('\n');
    if (current === offered.join('\n')) continue;
    list.replaceChildren(...offered.map((directory) => el('option', { value: directory })));
  }
}
