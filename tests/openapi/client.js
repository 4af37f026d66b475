// A typed TypeScript client generated from a real daemon's GET /openapi.json (openapi-typescript
// 7 + openapi-fetch), compiled with tsc --strict (noUncheckedIndexedAccess,
// exactOptionalPropertyTypes) and run against that daemon: client/client.ts starts a cipher run,
// waits for it and reads a measurement's bytes_per_second, with no cast.
//   node client.js <path-to-hostprobe-binary>
'use strict';

const { execFileSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

const { startDaemon, request } = require('./daemon');

const modules = path.join(__dirname, '..', 'js', 'node_modules');
const bin = (name) => path.join(modules, '.bin', name);

function run(command, args, options = {}) {
  try {
    return execFileSync(command, args, { encoding: 'utf8', ...options });
  } catch (error) {
    throw new Error(`${path.basename(command)} ${args.join(' ')} failed:\n` +
                    `${error.stdout || ''}${error.stderr || ''}`);
  }
}

async function main() {
  // The client is built in a scratch folder that sees tests/js's packages.
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'hostprobe-client-'));
  fs.symlinkSync(modules, path.join(scratch, 'node_modules'), 'dir');
  fs.writeFileSync(path.join(scratch, 'package.json'), '{"type": "module", "private": true}\n');
  for (const file of ['client.ts', 'tsconfig.json'])
    fs.copyFileSync(path.join(__dirname, 'client', file), path.join(scratch, file));
  const agent = await startDaemon(process.argv[2]);
  try {
    const answer = await request(agent.port, 'GET', '/openapi.json');
    if (answer.status !== 200) throw new Error('GET /openapi.json answered ' + answer.status);
    fs.writeFileSync(path.join(scratch, 'openapi.json'), answer.body);
    // --default-non-nullable=false: a request member with a default stays optional; the answers
    // say what is always there with `required` (RunParams.<probe>: every parameter).
    run(bin('openapi-typescript'),
        ['openapi.json', '--output', 'schema.d.ts', '--default-non-nullable=false'],
        { cwd: scratch });
    run(bin('tsc'), ['--project', 'tsconfig.json'], { cwd: scratch });
    const output = run(process.execPath, [path.join('out', 'client.js'),
                                          `http://127.0.0.1:${agent.port}`], { cwd: scratch });
    console.log('the typed client ran: ' + output.trim());
  } finally {
    await agent.stop();
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error('FAIL: ' + (error.stack || String(error)));
  process.exit(1);
});
