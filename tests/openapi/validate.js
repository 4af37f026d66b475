// The OpenAPI document of a real daemon, validated by @apidevtools/swagger-parser, and real
// answers of every endpoint validated with ajv (JSON Schema 2020-12, OpenAPI 3.1's dialect)
// against the schema the document gives for that operation, status and media type. A status an
// operation does not list is a failure: the document cannot drift from the code.
//   node validate.js <path-to-hostprobe-binary>
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');
const { createRequire } = require('module');

const daemon = require('./daemon');
const { startFakeEcs } = require('../support/fake_ecs.js');

// The pinned packages of tests/js.
const requireJs = createRequire(path.join(__dirname, '..', 'js', 'package.json'));
const SwaggerParser = requireJs('@apidevtools/swagger-parser');
const Ajv2020 = requireJs('ajv/dist/2020').default;
const addFormats = requireJs('ajv-formats').default;

const binary = process.argv[2];
const request = daemon.request;
const startDaemon = (args, env) => daemon.startDaemon(binary, args, env);
const failures = [];
const checked = [];  // "METHOD /template STATUS media"

function fail(message) {
  failures.push(message);
  console.error('FAIL: ' + message);
}

function postJson(port, target, value, headers = {}) {
  return request(port, 'POST', target, {
    headers: { 'Content-Type': 'application/json', ...headers },
    body: typeof value === 'string' ? value : JSON.stringify(value),
  });
}

// --- the document -----------------------------------------------------------------------------

// A copy of the document in which every object schema that lists its members allows no others:
// an answer that validates against it has no member the document lacks.
function closedCopy(document) {
  const copy = JSON.parse(JSON.stringify(document));
  const close = (node) => {
    if (Array.isArray(node)) return node.forEach(close);
    if (!node || typeof node !== 'object') return;
    if (node.properties && typeof node.properties === 'object' && !('additionalProperties' in node))
      node.additionalProperties = false;
    Object.values(node).forEach(close);
  };
  close(copy.components.schemas);
  return copy;
}

// Whether an error comes from the schema of the probe the run it is in belongs to, not from
// another branch of the oneOf over the probes (those complain of every member).
function ofItsOwnProbe(error, value) {
  const schemaProbe = /\/components\/schemas\/[A-Za-z]+\.([a-z0-9_]+)\//.exec(error.schemaPath);
  if (!schemaProbe) return true;
  let at = value;
  let probe = null;
  for (const key of error.instancePath.split('/').slice(1)) {
    if (at && typeof at === 'object' && typeof at.probe === 'string') probe = at.probe;
    at = at && typeof at === 'object' ? at[key] : undefined;
  }
  return probe === null || probe === schemaProbe[1];
}

function newAjv(document) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema(document, 'openapi.json');
  return ajv;
}

class Contract {
  constructor(document) {
    this.document = document;
    this.ajv = newAjv(document);
    // Strict: the daemon's answers may hold no member the document does not name.
    this.closedAjv = newAjv(closedCopy(document));
    this.templates = Object.keys(document.paths).map((template) => ({
      template,
      pattern: new RegExp('^' + template.replace(/\{[^/]+\}/g, '[^/]+') + '$'),
    }));
  }

  // The path item's template for a concrete path, or null.
  template(pathname) {
    const found = this.templates.find(({ pattern }) => pattern.test(pathname));
    return found ? found.template : null;
  }

  resolve(object) {
    let resolved = object;
    while (resolved && resolved.$ref) {
      resolved = resolved.$ref.slice(2).split('/').reduce((at, key) => at[key], this.document);
    }
    return resolved;
  }

  // The response object the document gives for this request and status, or null.
  responseFor(method, pathname, status) {
    const template = this.template(pathname);
    const operation = template && this.document.paths[template][method.toLowerCase()];
    if (operation) {
      const response = operation.responses[String(status)];
      return response ? { where: `${method} ${template}`, response: this.resolve(response) } : null;
    }
    // Requests no operation describes: an unknown path, or a method the path lacks.
    const outside = { 404: 'NotFound', 405: 'MethodNotAllowed', 501: 'NotImplemented' }[status];
    const wanted = template ? 405 : 404;
    if (!outside || (status !== wanted && status !== 501)) return null;
    return { where: `${method} (${template || 'no path'})`,
             response: this.document['x-answers-outside-operations'][outside] };
  }

  schemaValidator(schema, ajv = this.ajv) {
    if (schema.$ref) return ajv.getSchema('openapi.json' + schema.$ref);
    return ajv.compile(schema);
  }

  // Whether the document's request-body schema agrees with the agent on a body it accepted
  // (2xx) or refused as invalid (400).
  checkRequest(label, method, target, body, accepted) {
    const template = this.template(target.split('?')[0]);
    const operation = this.document.paths[template][method.toLowerCase()];
    const validate = this.schemaValidator(operation.requestBody.content['application/json'].schema);
    if (validate(body) !== accepted) {
      fail(`${label}: the agent ${accepted ? 'accepted' : 'refused'} the body, the document's ` +
           `schema ${accepted ? 'refuses' : 'accepts'} it: ${JSON.stringify(body)}`);
      return;
    }
    checked.push(`${method} ${template} request ${accepted ? 'valid' : 'invalid'}`);
  }

  // Checks one real answer; `label` says which request it was.
  check(label, method, target, answer) {
    const pathname = target.split('?')[0];
    const found = this.responseFor(method, pathname, answer.status);
    if (!found) {
      fail(`${label}: ${method} ${target} answered ${answer.status}, which the document does not list`);
      return;
    }
    const mediaType = (answer.headers['content-type'] || '').split(';')[0].trim();
    const content = found.response.content || {};
    if (Object.keys(content).length === 0 && answer.body.length === 0) {  // 304: no body at all
      checked.push(`${found.where} ${answer.status} no body`);
      return;
    }
    const media = content[mediaType];
    if (!media) {
      fail(`${label}: ${found.where} ${answer.status} is ${mediaType || 'untyped'}; the document ` +
           `lists ${Object.keys(content).join(', ') || 'no body'}`);
      return;
    }
    for (const header of Object.keys(found.response.headers || {})) {
      if (!(header.toLowerCase() in answer.headers))
        fail(`${label}: ${found.where} ${answer.status} lacks the header ${header}`);
    }
    let value = answer.body;
    if (mediaType === 'application/json') {
      try {
        value = JSON.parse(answer.body);
      } catch (error) {
        fail(`${label}: the body is not JSON: ${error.message}`);
        return;
      }
    }
    const validate = this.schemaValidator(media.schema);
    if (!validate(value)) {
      // oneOf over the probes reports every branch's complaints: the first few distinct ones.
      const reasons = [...new Set(validate.errors.map((e) => `${e.instancePath} ${e.message}`))];
      fail(`${label}: ${found.where} ${answer.status} ${mediaType} does not match its schema:\n  ` +
           reasons.slice(0, 10).join('\n  '));
      return;
    }
    const closed = this.schemaValidator(media.schema, this.closedAjv);
    if (!closed(value)) {
      const members = [...new Set(closed.errors
        .filter((e) => e.keyword === 'additionalProperties' && ofItsOwnProbe(e, value))
        .map((e) => `${e.instancePath}/${e.params.additionalProperty}`))];
      const reasons = members.length ? members
        : [...new Set(closed.errors.map((e) => `${e.instancePath} ${e.message}`))];
      fail(`${label}: ${found.where} ${answer.status} ${mediaType} has members the document ` +
           `does not name:\n  ` + reasons.slice(0, 10).join('\n  '));
      return;
    }
    checked.push(`${found.where} ${answer.status} ${mediaType}`);
  }
}

async function fetchDocument(port, headers = {}) {
  const answer = await request(port, 'GET', '/openapi.json', { headers });
  if (answer.status !== 200) throw new Error('GET /openapi.json answered ' + answer.status);
  const document = JSON.parse(answer.body);
  // validate() dereferences the object it is given: hand it a copy.
  await SwaggerParser.validate(JSON.parse(answer.body));
  return { document, answer };
}

// --- the runs of every probe ------------------------------------------------------------------

// Short params for each probe; a probe missing here fails the test (add it).
function shortParams(directory) {
  return {
    cpu: {},
    cipher: { ciphers: ['aes-128-ctr'], block_sizes: [1024], seconds: 0.1 },
    disk: { directory, size: '1m', bs: '4k', time_based: false, direct: false },
    files: { directory, files: 20 },
    system: { tests: ['syscall'], copies: [1], seconds: 1 },
  };
}

async function waitUntilFinished(port, id) {
  for (let i = 0; i < 600; ++i) {
    const run = JSON.parse((await request(port, 'GET', '/v1/runs/' + id)).body);
    if (['succeeded', 'failed', 'cancelled'].includes(run.state)) return run;
    await new Promise((done) => setTimeout(done, 100));
  }
  throw new Error('run ' + id + ' did not finish in 60 s');
}

async function exerciseOpenDaemon(contract, port, allowed, elsewhere) {
  const check = (label, method, target, answer) => contract.check(label, method, target, answer);
  const get = async (target, headers) => {
    const answer = await request(port, 'GET', target, { headers });
    check('GET ' + target, 'GET', target, answer);
    return answer;
  };

  for (const target of ['/healthz', '/v1/host', '/v1/host?format=text', '/metrics', '/v1/probes',
                        '/', '/openapi.json', '/v1/runs', '/v1/runs?limit=2&state=succeeded',
                        '/ui/app.js', '/ui/app.css', '/ui/index.html']) {
    await get(target);
  }
  // The page for a browser, its files gzip-compressed, unchanged (304), and a file it lacks.
  await get('/', { Accept: 'text/html,application/xhtml+xml,*/*;q=0.8' });
  await get('/ui/app.js', { 'Accept-Encoding': 'gzip' });
  const script = await request(port, 'GET', '/ui/app.js');
  await get('/ui/app.js', { 'If-None-Match': script.headers.etag });
  await get('/ui/no-such-file.js');

  // A finished run of every probe, read back as JSON and as text.
  const probes = JSON.parse((await request(port, 'GET', '/v1/probes')).body).probes;
  const params = shortParams(allowed);
  for (const { name } of probes) {
    if (!(name in params)) {
      fail(`probe ${name} has no short params in tests/openapi/validate.js`);
      continue;
    }
    const created = await postJson(port, '/v1/runs?wait=120', { probe: name, params: params[name] });
    check(`run of ${name}`, 'POST', '/v1/runs', created);
    contract.checkRequest(`run of ${name}`, 'POST', '/v1/runs',
                          { probe: name, params: params[name] }, created.status === 200);
    const run = JSON.parse(created.body);
    if (created.status !== 200 || run.state !== 'succeeded') {
      fail(`the ${name} run answered ${created.status}, state ${run.state}: ${run.error}`);
      continue;
    }
    await get('/v1/runs/' + run.id);
    await get('/v1/runs/' + run.id + '?format=text');
    await get('/v1/runs?probe=' + name);
  }

  // 202, then DELETE while queued or running (200 or 202), and 409 once it has finished.
  const long = await postJson(port, '/v1/runs',
                              { probe: 'cipher', params: { ciphers: ['aes-128-ctr'], seconds: 30 } });
  check('a long run', 'POST', '/v1/runs', long);
  const longId = JSON.parse(long.body).id;
  check('cancel', 'DELETE', '/v1/runs/' + longId,
        await request(port, 'DELETE', '/v1/runs/' + longId));
  await waitUntilFinished(port, longId);
  await get('/v1/runs/' + longId);  // cancelled: a partial result or none
  const again = await request(port, 'DELETE', '/v1/runs/' + longId);
  if (again.status !== 409) fail('DELETE of a finished run answered ' + again.status + ', not 409');
  check('cancel a finished run', 'DELETE', '/v1/runs/' + longId, again);

  const errors = [
    ['a bad param', 'POST', '/v1/runs', { probe: 'cipher', params: { ciphers: ['des'] } }, 400],
    ['an unknown param', 'POST', '/v1/runs', { probe: 'cpu', params: { nope: 1 } }, 400],
    ['a param over its maximum', 'POST', '/v1/runs',
     { probe: 'cipher', params: { seconds: 100000 } }, 400],
    ['an empty list', 'POST', '/v1/runs', { probe: 'cipher', params: { block_sizes: [] } }, 400],
    ['an unknown member', 'POST', '/v1/runs', { probe: 'cpu', extra: true }, 400],
    ['a directory holding a NUL', 'POST', '/v1/runs',
     { probe: 'disk', params: { ...params.disk, directory: allowed + '\u0000x' } }, 400],
    ['a size that is no size', 'POST', '/v1/runs',
     { probe: 'disk', params: { directory: allowed, size: 'big' } }, 400],
    ['malformed JSON', 'POST', '/v1/runs', '{"probe": "cpu",', 400],
    ['a bad ?wait', 'POST', '/v1/runs?wait=-1', { probe: 'cpu' }, 400],
    ['an unknown probe', 'POST', '/v1/runs', { probe: 'gpu' }, 404],
    ['a directory outside --disk-dir', 'POST', '/v1/runs',
     { probe: 'disk', params: { ...params.disk, directory: elsewhere } }, 403],
    ['a body over --max-body-bytes', 'POST', '/v1/runs',
     JSON.stringify({ probe: 'cpu' }) + ' '.repeat(4096), 413],
  ];
  for (const [label, method, target, body, expected] of errors) {
    const answer = await postJson(port, target, body);
    if (answer.status !== expected) fail(`${label}: ${answer.status}, not ${expected}`);
    check(label, method, target, answer);
    if (expected === 400 && typeof body === 'object' && target === '/v1/runs')
      contract.checkRequest(label, method, target, body, false);
  }
  const plainBody = await request(port, 'POST', '/v1/runs',
                                  { headers: { 'Content-Type': 'text/plain' }, body: '{"probe":"cpu"}' });
  if (plainBody.status !== 415) fail('a text/plain body: ' + plainBody.status + ', not 415');
  check('a text/plain body', 'POST', '/v1/runs', plainBody);
  const rebinding = await postJson(port, '/v1/runs', { probe: 'cpu' }, { Host: 'evil.example:9740' });
  if (rebinding.status !== 403) fail('a foreign Host name: ' + rebinding.status + ', not 403');
  check('a foreign Host name', 'POST', '/v1/runs', rebinding);

  const reads = [['/v1/host?format=xml', 400], ['/v1/task', 404], ['/v1/task?format=xml', 400],
                 ['/v1/runs/0123abc?format=xml', 404],
                 ['/v1/runs?limit=0', 400], ['/v1/runs?state=done', 400],
                 ['/v1/runs?probe=gpu', 400], ['/v1/runs/nope', 404], ['/nowhere', 404]];
  for (const [target, expected] of reads) {
    const answer = await get(target);
    if (answer.status !== expected) fail(`GET ${target}: ${answer.status}, not ${expected}`);
  }
  for (const [method, target] of [['PUT', '/v1/runs'], ['POST', '/v1/host'], ['DELETE', '/healthz']]) {
    const answer = await request(port, method, target);
    if (answer.status !== 405) fail(`${method} ${target}: ${answer.status}, not 405`);
    check(`${method} ${target}`, method, target, answer);
  }
}

// --token and --auth-reads: 401 for reads and writes without it or with a wrong one; 429 past
// --max-runs-per-minute.
async function exerciseGuardedDaemon(contract, port, token) {
  const bearer = { Authorization: 'Bearer ' + token };
  const cases = [
    ['a read without the token', 'GET', '/v1/host', {}, undefined, 401],
    ['a run without the token', 'POST', '/v1/runs', { 'Content-Type': 'application/json' },
     '{"probe":"cpu"}', 401],
    ['a run with a wrong token', 'POST', '/v1/runs',
     { 'Content-Type': 'application/json', Authorization: 'Bearer wrong-token-0123456789' },
     '{"probe":"cpu"}', 401],
    ['healthz without the token', 'GET', '/healthz', {}, undefined, 200],
    ['a read with the token', 'GET', '/v1/runs', bearer, undefined, 200],
    ['the first run', 'POST', '/v1/runs', { 'Content-Type': 'application/json', ...bearer },
     '{"probe":"cpu"}', 202],
    ['a run past --max-runs-per-minute', 'POST', '/v1/runs',
     { 'Content-Type': 'application/json', ...bearer }, '{"probe":"cpu"}', 429],
  ];
  for (const [label, method, target, headers, body, expected] of cases) {
    const answer = await request(port, method, target, { headers, body });
    if (answer.status !== expected) fail(`${label}: ${answer.status}, not ${expected}`);
    contract.check(label, method, target, answer);
  }
}

// A daemon in a pretend ECS task: GET /v1/task and /v1/host's live.task once the stats are read.
async function exerciseTaskDaemon(contract, port) {
  for (let i = 0; i < 300; ++i) {
    if ((await request(port, 'GET', '/v1/task')).status === 200) break;
    await new Promise((done) => setTimeout(done, 100));
  }
  for (const target of ['/v1/task', '/v1/task?format=text', '/v1/host', '/v1/host?format=text']) {
    const answer = await request(port, 'GET', target);
    if (answer.status !== 200) fail(`GET ${target} in an ECS task: ${answer.status}, not 200`);
    contract.check('GET ' + target + ' in an ECS task', 'GET', target, answer);
  }
  const host = JSON.parse((await request(port, 'GET', '/v1/host')).body);
  if (!host.live.task || host.live.task.containers.length !== 3)
    fail('GET /v1/host in an ECS task has no live.task with the 3 containers');
}

// Every operation answered at least once with success, and every error status the issue names.
function checkCoverage(document) {
  for (const [template, item] of Object.entries(document.paths)) {
    for (const method of Object.keys(item)) {
      const where = `${method.toUpperCase()} ${template}`;
      if (!checked.some((entry) => entry.startsWith(where + ' 2')))
        fail(`no successful answer of ${where} was checked`);
    }
  }
  for (const status of [400, 401, 403, 404, 405, 409, 413, 415, 429]) {
    if (!checked.some((entry) => entry.split(' ').includes(String(status))))
      fail(`no ${status} answer was checked`);
  }
}

async function main() {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'hostprobe-openapi-'));
  const allowed = path.join(scratch, 'allowed');
  const elsewhere = path.join(scratch, 'elsewhere');
  fs.mkdirSync(allowed);
  fs.mkdirSync(elsewhere);
  const token = 'openapi-test-token-0123456789abcdef';
  const daemons = [];
  try {
    const open = await startDaemon(['--disk-dir', allowed, '--max-body-bytes', '1024'], {});
    daemons.push(open);
    const { document } = await fetchDocument(open.port);
    console.log(`the document passes swagger-parser: ${Object.keys(document.paths).length} paths, ` +
                `${Object.keys(document.components.schemas).length} schemas`);
    const contract = new Contract(document);
    await exerciseOpenDaemon(contract, open.port, allowed, elsewhere);

    // The document states the body limit the daemon was started with (the only option it
    // names), so both daemons get the same one.
    const bodyBound = document.paths['/v1/runs'].post.requestBody.description;
    if (!bodyBound.includes('at most 1024 bytes')) {
      fail(`POST /v1/runs's body description does not state --max-body-bytes 1024: ${bodyBound}`);
    }
    const guarded = await startDaemon(['--auth-reads', '--max-runs-per-minute', '1',
                                       '--max-body-bytes', '1024'],
                                      { HOSTPROBE_TOKEN: token });
    daemons.push(guarded);
    const { answer } = await fetchDocument(guarded.port, { Authorization: 'Bearer ' + token });
    if (answer.body !== JSON.stringify(document, null, 2) + '\n' &&
        JSON.stringify(JSON.parse(answer.body)) !== JSON.stringify(document)) {
      fail('the document differs between two daemons of the same binary');
    }
    await exerciseGuardedDaemon(contract, guarded.port, token);
    const ecs = await startFakeEcs('/v4/openapi');
    daemons.push({ stop: async () => ecs.child.kill() });
    const sidecar = await startDaemon(['--ecs-stats-interval', '1'],
                                      { ECS_CONTAINER_METADATA_URI_V4: ecs.uri });
    daemons.push(sidecar);
    await exerciseTaskDaemon(contract, sidecar.port);
    checkCoverage(document);
  } finally {
    await Promise.all(daemons.map((daemon) => daemon.stop()));
    fs.rmSync(scratch, { recursive: true, force: true });
  }
  console.log(`${checked.length} answers and request bodies agreed with the document`);
  if (failures.length) {
    console.error(`${failures.length} failure(s)`);
    process.exit(1);
  }
}

main().catch((error) => {
  console.error(error.stack || String(error));
  process.exit(1);
});
