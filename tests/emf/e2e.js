// End to end: the real daemon with --emf runs every probe (short params), outside ECS and with a
// fake ECS task metadata endpoint; every line it writes to stdout must pass validate.js (AWS's
// schema and the specification's other rules), and the lines must be the ones promised: a host
// line, a summary per run with its result, a measurement line per cell, op, test or direction.
//   node e2e.js HOSTPROBE_BINARY FIXTURES_DIR
'use strict';
const assert = require('assert');
const childProcess = require('child_process');
const fs = require('fs');
const http = require('http');
const os = require('os');
const path = require('path');
const { lineProblems } = require('./validate.js');

const [binary, fixturesDir] = process.argv.slice(2);
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'hostprobe-emf-'));

const kRuns = {
  cpu: {},
  cipher: { seconds: 0.1, ciphers: ['aes-128-gcm', 'chacha20'], block_sizes: [16, 1024] },
  disk: { directory: scratch, rw: 'randrw', bs: 4096, size: 1 << 20, runtime: 1, direct: false },
  files: { directory: scratch, files: 20 },
  system: { tests: ['dhrystone', 'syscall'], copies: [1], seconds: 1 },
};

function request(port, method, target, body) {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request({ host: '127.0.0.1', port, method, path: target,
      headers: data ? { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(data) } : {} }, (res) => {
      let text = '';
      res.on('data', (chunk) => { text += chunk; });
      res.on('end', () => resolve({ status: res.statusCode, body: text }));
    });
    req.on('error', reject);
    if (data) req.write(data);
    req.end();
  });
}

// A stand-in for ECS's task metadata v4 endpoint serving a real Fargate task and its stats.
function fakeEcs() {
  const task = fs.readFileSync(path.join(fixturesDir, 'ecs/ecs_exporter/fargate_task_metadata.json'));
  const stats = fs.readFileSync(path.join(fixturesDir, 'ecs/ecs_exporter/fargate_task_stats.json'));
  const server = http.createServer((req, res) => {
    res.setHeader('Content-Type', 'application/json');
    res.end(req.url.endsWith('/task') ? task : req.url.endsWith('/task/stats') ? stats : '{}');
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

// `viaEnvironment`: --emf and --emf-namespace as their HOSTPROBE_* twins, as task definitions set them.
function startDaemon(name, extra, viaEnvironment) {
  const stdoutPath = path.join(scratch, `${name}.stdout`);
  const out = fs.openSync(stdoutPath, 'w');
  const emf = viaEnvironment ? [] : ['--emf', '--emf-namespace', 'hostprobe/e2e'];
  const env = viaEnvironment
    ? { ...process.env, HOSTPROBE_EMF: '1', HOSTPROBE_EMF_NAMESPACE: 'hostprobe/e2e' } : process.env;
  const child = childProcess.spawn(binary, ['serve', '--listen', '127.0.0.1:0', ...emf,
    '--max-runs-per-minute', '0', '--disk-dir', scratch, ...extra], { stdio: ['ignore', out, 'pipe'], env });
  fs.closeSync(out);
  let errors = '';
  const port = new Promise((resolve, reject) => {
    child.stderr.on('data', (chunk) => {
      errors += chunk;
      const found = /msg=listening address=\S*:(\d+)/.exec(errors);
      if (found) resolve(Number(found[1]));
    });
    child.on('exit', (code) => reject(new Error(`daemon exited ${code}: ${errors}`)));
  });
  return { child, port, stdoutPath, errors: () => errors };
}

async function runEveryProbe(port) {
  for (const [probe, params] of Object.entries(kRuns)) {
    const reply = await request(port, 'POST', '/v1/runs?wait=300', { probe, params });
    assert.strictEqual(reply.status, 200, `${probe}: ${reply.body}`);
    const run = JSON.parse(reply.body);
    assert.strictEqual(run.state, 'succeeded', `${probe}: ${reply.body}`);
  }
  // A reader that keeps up loses nothing; the counters say what was written.
  let metrics = '';
  const sample = (name) => Number((new RegExp(`^${name} (\\S+)$`, 'm').exec(metrics) || [])[1]);
  for (let i = 0; i < 2000; ++i) {
    metrics = (await request(port, 'GET', '/metrics')).body;
    if (sample('hostprobe_emf_lines_written_total') > 0) break;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assert.ok(sample('hostprobe_emf_lines_written_total') > 0, metrics);
  assert.strictEqual(sample('hostprobe_emf_lines_dropped_total'), 0);
}

function stop(daemon) {
  return new Promise((resolve) => {
    daemon.child.on('exit', (code) => resolve(code));
    daemon.child.kill('SIGTERM');
  });
}

function checkLines(name, stdoutPath, expectEcs) {
  const lines = fs.readFileSync(stdoutPath, 'utf8').split('\n');
  assert.strictEqual(lines.pop(), '', `${name}: the output ends with a newline`);
  const documents = lines.map((line, index) => {
    const problems = lineProblems(line);
    assert.deepStrictEqual(problems, [], `${name} line ${index + 1}: ${line.slice(0, 300)}`);
    return JSON.parse(line);
  });
  const kinds = (kind) => documents.filter((d) => d.hostprobe_kind === kind);
  assert.strictEqual(kinds('host').length, 1, `${name}: one host line`);
  const host = kinds('host')[0];
  assert.strictEqual(host.Tasks, 1);
  assert.strictEqual(host.LaunchType, expectEcs ? 'FARGATE' : 'none');
  assert.strictEqual(host.TaskFamily, expectEcs ? 'prom-ecs-exporter-sandbox-main-fargate' : 'none');
  for (const document of documents)
    assert.strictEqual(document._aws.CloudWatchMetrics[0].Namespace, 'hostprobe/e2e');
  // In ECS, the task's stats: a task line and one per running container (at most once a minute).
  const task = kinds('task');
  if (expectEcs) {
    const whole = task.filter((d) => d.Container === undefined);
    assert.strictEqual(whole.length, 1, `${name}: one task line in its first minute`);
    assert.strictEqual(whole[0].ContainersRunning, 2);
    assert.strictEqual(whole[0].ContainersNotRunning, 1);
    assert.ok(whole[0].TaskCpuCoresUsed > 0 && whole[0].TaskMemoryWorkingSet === 75550720 + 45010944);
    assert.deepStrictEqual(task.filter((d) => d.Container).map((d) => d.Container).sort(), ['ecs-exporter', 'prometheus']);
    assert.ok(task.filter((d) => d.Container).every((d) => d.ContainerMemoryWorkingSet > 0));
  } else {
    assert.strictEqual(task.length, 0, `${name}: no task lines outside ECS`);
  }
  const summaries = kinds('run');
  assert.deepStrictEqual(summaries.map((d) => d.probe).sort(), Object.keys(kRuns).sort());
  for (const summary of summaries) {
    assert.ok(summary.hostprobe_result && typeof summary.hostprobe_result === 'object', summary.probe);
    assert.strictEqual(summary.RunFailed, 0);
  }
  const measured = (probe) => kinds('measurement').filter((d) => d.probe === probe);
  assert.strictEqual(measured('cipher').length, 4, 'a line per cipher and block size');
  assert.ok(measured('cipher').every((d) => d.CipherBytesPerSecond > 0));
  assert.deepStrictEqual(measured('disk').map((d) => d.Direction).sort(), ['read', 'write']);
  assert.deepStrictEqual(measured('files').map((d) => d.FilesOp).sort(),
                         Object.keys(summaries.find((d) => d.probe === 'files').hostprobe_result.ops).sort());
  assert.ok(measured('system').some((d) => d.SystemTest === 'dhrystone' && d.Copies === '1'));
  return documents.length;
}

// The validator itself refuses what it must: a unit outside CloudWatch's list (the schema), a
// dimension or metric missing from the root, 101 metrics (the specification's text).
function checkValidatorRefuses() {
  const base = () => ({ _aws: { Timestamp: 1, CloudWatchMetrics: [{ Namespace: 'n', Dimensions: [['D']],
    Metrics: [{ Name: 'M', Unit: 'Count' }] }] }, D: 'd', M: 1 });
  assert.deepStrictEqual(lineProblems(JSON.stringify(base())), []);
  const badUnit = base();
  badUnit._aws.CloudWatchMetrics[0].Metrics[0].Unit = 'Hertz';
  assert.notDeepStrictEqual(lineProblems(JSON.stringify(badUnit)), []);
  const noDimension = base();
  delete noDimension.D;
  assert.notDeepStrictEqual(lineProblems(JSON.stringify(noDimension)), []);
  const textMetric = base();
  textMetric.M = '1';
  assert.notDeepStrictEqual(lineProblems(JSON.stringify(textMetric)), []);
  const tooMany = base();
  for (let i = 0; i < 101; ++i) {
    tooMany._aws.CloudWatchMetrics[0].Metrics.push({ Name: `M${i}`, Unit: 'None' });
    tooMany[`M${i}`] = i;
  }
  assert.notDeepStrictEqual(lineProblems(JSON.stringify(tooMany)), []);
}

async function main() {
  checkValidatorRefuses();
  const refused = childProcess.spawnSync(binary, ['serve', '--emf'],
    { env: { ...process.env, HOSTPROBE_EMF_NAMESPACE: 'AWS/EC2' }, encoding: 'utf8' });
  assert.strictEqual(refused.status, 2, 'a reserved namespace is a usage error');
  assert.match(refused.stderr, /--emf-namespace: .*AWS\//);
  const plain = startDaemon('plain', [], false);
  await runEveryProbe(await plain.port);
  assert.strictEqual(await stop(plain), 0, plain.errors());
  const plainLines = checkLines('outside ECS', plain.stdoutPath, false);

  const ecs = await fakeEcs();
  const inEcs = startDaemon('ecs', ['--ecs-metadata-uri', `http://127.0.0.1:${ecs.address().port}/v4/abc`], true);
  const port = await inEcs.port;
  // The host line waits for the metadata; GET /v1/host shows when it has arrived.
  for (let i = 0; i < 2000; ++i) {
    const host = JSON.parse((await request(port, 'GET', '/v1/host')).body);
    if (host.ecs) break;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  await runEveryProbe(port);
  assert.strictEqual(await stop(inEcs), 0, inEcs.errors());
  ecs.close();
  const ecsLines = checkLines('in ECS', inEcs.stdoutPath, true);
  console.log(`EMF e2e: ${plainLines} lines outside ECS and ${ecsLines} in ECS, all valid`);
  fs.rmSync(scratch, { recursive: true, force: true });
}

main().catch((error) => {
  console.error(error.stack || error);
  process.exit(1);
});
