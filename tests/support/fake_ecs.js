// Starts tests/support/fake_ecs.py serving ecs_exporter's real Fargate capture (a 0.25 vCPU
// task: two running containers, one stopped) for the node tests (page, audits, OpenAPI).
// Resolves with {uri, child}: the ECS_CONTAINER_METADATA_URI_V4 to give an agent, and the
// process, which the caller stops.
'use strict';

const { spawn } = require('node:child_process');
const path = require('node:path');

const SOURCE_ROOT = path.resolve(__dirname, '../..');

function startFakeEcs(prefix, cores = 0.05) {
  const fixtures = path.join(SOURCE_ROOT, 'tests/fixtures/ecs/ecs_exporter');
  const child = spawn('python3', ['-u', path.join(__dirname, 'fake_ecs.py'), '--prefix', prefix,
    '--cores', String(cores), '--task', path.join(fixtures, 'fargate_task_metadata.json'),
    '--stats', path.join(fixtures, 'fargate_task_stats.json')], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const match = /^port (\d+)$/m.exec(out);
      if (match) resolve({ uri: `http://127.0.0.1:${match[1]}${prefix}`, child });
    });
    child.once('exit', (code) => reject(new Error(`fake_ecs.py exited ${code}`)));
  });
}

module.exports = { startFakeEcs };
