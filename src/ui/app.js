// Wires the page: loads the host, the probes and the runs, polls while the page is open, asks
// for the token when the agent answers 401, keeps the headline on the latest cipher run, and
// shows the run named in the address's #run/<id>.

import { byId, clear } from './dom.js';
import { get, saveToken, forgetToken, whenUnauthorized } from './api.js';
import { renderHost, ThrottlingWatch } from './host.js';
import { renderTask } from './task.js';
import { renderProbeForms, offerDirectories } from './forms.js';
import { renderRunsTable, renderRunView, hideRunView, isActive } from './runs.js';
import { renderHistory } from './history.js';
import { chartsReady } from './chart.js';
import { renderHeadlineHost, renderHeadlineRun, latestCipherRun } from './headline.js';

// One tick every 10 s asks for the host and then, while no run is active, for the run list: one
// after the other, so the browser sends both over one connection (each new connection costs
// the agent about 0.3 ms of CPU, in someone else's task; a tick about 1 ms). Every 10 s, as a
// dashboard's rate over 10 s: a page left open costs the task under 0.1% of 0.25 vCPU (issue 29).
// A hidden page does not tick; shown again, it ticks at once. Active runs are followed every 0.5 s.
const HOST_EVERY_MS = 10000;
const RUNS_ACTIVE_EVERY_MS = 500;
const RUNS_IDLE_EVERY_MS = HOST_EVERY_MS;
const RUNS_LISTED = 50;

const state = {
  waitingForToken: false,
  loaded: false,
  runs: [],
  listedAt: 0,
  viewedKey: '',
  historyKey: null,
  headlineRun: null,
  throttling: new ThrottlingWatch(),
  timers: { host: 0, runs: 0 },
  runsInFlight: false,
  hostInFlight: false,
};

function askForToken(error, hadToken) {
  state.waitingForToken = true;
  if (hadToken) forgetToken();
  byId('token-reason').textContent = hadToken
    ? `The agent refused the token (401: ${error.serverMessage}). Enter the right one.`
    : 'The agent answers only with its bearer token (401 Unauthorized): it runs with --auth-reads or a token and this browser is not a trusted peer. Enter the token from the task\'s HOSTPROBE_TOKEN or --token-file.';
  const section = byId('token');
  section.hidden = false;
  byId('token-input').focus();
}

function showProblem(elementId, error) {
  if (error.status === 401) return;
  byId(elementId).textContent = error.message;
}

async function refreshHost() {
  clearTimeout(state.timers.host);
  if (state.waitingForToken || state.hostInFlight) return;
  state.hostInFlight = true;
  try {
    const host = await get('/v1/host');
    renderHost(host);
    renderHeadlineHost(host);
    state.throttling.update(host);
    renderTask(host);
    byId('host-status').textContent = '';
  } catch (error) {
    showProblem('host-status', error);
  }
  try {
    // No run active: the run list rides on this tick (refreshRuns armed no timer of its own).
    if (!state.timers.runs && !state.runsInFlight) await refreshRuns();
  } finally {
    state.hostInFlight = false;
  }
  if (!state.waitingForToken && !document.hidden) state.timers.host = setTimeout(refreshHost, HOST_EVERY_MS);
}

function runFromHash() {
  const match = /^#run\/(.+)$/.exec(location.hash);
  return match ? decodeURIComponent(match[1]) : null;
}

async function refreshView() {
  const id = runFromHash();
  if (!id) {
    state.viewedKey = '';
    hideRunView();
    return;
  }
  let run = state.runs.find((candidate) => candidate.id === id);
  if (!run) {
    try {
      run = await get(`/v1/runs/${encodeURIComponent(id)}`);
    } catch (error) {
      showProblem('runs-status', error);
      return;
    }
  }
  const key = `${run.id}:${run.state}:${run.progress}`;
  if (key === state.viewedKey) return;
  if (!isActive(run)) {
    try {
      await chartsReady();
    } catch (error) {
      showProblem('runs-status', error);
      return;
    }
  }
  state.viewedKey = key;
  renderRunView(run, state.runs, () => refreshRuns({ full: true }));
}

async function refreshHistory() {
  const key = state.runs.filter((run) => run.probe === 'cipher' && run.state === 'succeeded').map((run) => run.id).join(',');
  if (key === state.historyKey) return;
  if (key !== '') await chartsReady();
  state.historyKey = key;
  renderHistory(state.runs);
}

// The whole list (every run with its result) is fetched every few seconds; while runs are
// queued or running, only those are fetched in between, so a watching browser costs the agent
// little.
async function fetchRuns() {
  const now = Date.now();
  const active = state.runs.filter(isActive);
  if (active.length > 0 && now - state.listedAt < RUNS_IDLE_EVERY_MS) {
    const fresh = await Promise.all(active.map((run) => get(`/v1/runs/${encodeURIComponent(run.id)}`)));
    const byRunId = new Map(fresh.map((run) => [run.id, run]));
    return state.runs.map((run) => byRunId.get(run.id) || run);
  }
  const answer = await get(`/v1/runs?limit=${RUNS_LISTED}`);
  state.listedAt = now;
  return Array.isArray(answer.runs) ? answer.runs : [];
}

// The headline's run: the newest succeeded cipher run among those listed, or, when the list is
// full of other runs, the newest one the agent has (asked only when the whole list was fetched).
async function refreshHeadlineRun(listedAll) {
  let run = latestCipherRun(state.runs);
  if (!run && listedAll && state.runs.length >= RUNS_LISTED) {
    const answer = await get('/v1/runs?probe=cipher&state=succeeded&limit=1');
    run = latestCipherRun(Array.isArray(answer.runs) ? answer.runs : []);
  }
  if (run || listedAll) state.headlineRun = run;
  renderHeadlineRun(state.headlineRun);
}

async function refreshRuns({ full = false } = {}) {
  clearTimeout(state.timers.runs);
  state.timers.runs = 0;
  if (state.waitingForToken) return;
  if (full) state.listedAt = 0;
  let active = false;
  state.runsInFlight = true;
  try {
    const listedBefore = state.listedAt;
    state.runs = await fetchRuns();
    active = state.runs.some(isActive);
    renderRunsTable(state.runs, () => refreshRuns({ full: true }));
    await refreshHeadlineRun(state.listedAt !== listedBefore);
    offerDirectories([...new Set(state.runs.filter((run) => run.state === 'succeeded' && run.params && run.params.directory)
      .map((run) => String(run.params.directory)))].sort());
    // The history chart needs uPlot; should it fail to load, the run's view still shows.
    await refreshHistory().catch((error) => showProblem('runs-status', error));
    await refreshView();
  } catch (error) {
    showProblem('runs-status', error);
  }
  state.runsInFlight = false;
  // Idle, the host's tick lists the runs next; active, they are followed here.
  if (!state.waitingForToken && active) state.timers.runs = setTimeout(refreshRuns, RUNS_ACTIVE_EVERY_MS);
}

async function loadProbes() {
  try {
    const answer = await get('/v1/probes');
    renderProbeForms(answer.probes || [], (run) => {
      location.hash = `#run/${encodeURIComponent(run.id)}`;
      refreshRuns({ full: true });
    });
    return true;
  } catch (error) {
    if (error.status !== 401) clear(byId('probe-forms')).textContent = error.message;
    return false;
  }
}

async function start() {
  state.waitingForToken = false;
  byId('token').hidden = true;
  // All three at once: a first load waits for one round trip to the agent, not three.
  const [probesLoaded] = await Promise.all([state.loaded ? true : loadProbes(), refreshHost(), refreshRuns()]);
  state.loaded = probesLoaded;
  if (state.waitingForToken) return;
  // Tells a reader (and the browser tests) that the first answers are on the page.
  if (!state.waitingForToken) document.body.dataset.loaded = 'true';
}

byId('token-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const input = byId('token-input');
  const token = input.value.trim();
  if (!token) return;
  saveToken(token);
  input.value = '';
  start();
});

whenUnauthorized(askForToken);
// Hidden, the tick stops (the agent's CPU is someone else's); shown again, the page catches up.
document.addEventListener('visibilitychange', () => {
  if (document.hidden) clearTimeout(state.timers.host);
  else if (state.loaded) refreshHost();
});
window.addEventListener('hashchange', () => {
  state.viewedKey = '';
  refreshView().then(() => {
    if (runFromHash()) byId('run-title').focus();
  });
});
start();
