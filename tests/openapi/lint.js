// GET /openapi.json of a real daemon through Spectral: the `spectral:oas` ruleset and the OWASP
// API security ruleset (@stoplight/spectral-owasp-ruleset), each failing on any error or
// warning. The rules switched off, and why, are in the ruleset files beside this one.
//   node lint.js <path-to-hostprobe-binary>
'use strict';

const { execFileSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

const { startDaemon, request } = require('./daemon');

const spectral = path.join(__dirname, '..', 'js', 'node_modules', '.bin', 'spectral');
const rulesets = ['.spectral-oas.yaml', '.spectral-owasp.yaml'];

async function main() {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'hostprobe-lint-'));
  const agent = await startDaemon(process.argv[2]);
  let failed = 0;
  try {
    const answer = await request(agent.port, 'GET', '/openapi.json');
    if (answer.status !== 200) throw new Error('GET /openapi.json answered ' + answer.status);
    const document = path.join(scratch, 'openapi.json');
    fs.writeFileSync(document, answer.body);
    for (const ruleset of rulesets) {
      try {
        const output = execFileSync(
          spectral,
          ['lint', document, '--ruleset', path.join(__dirname, ruleset), '--fail-severity=warn',
           '--display-only-failures'],
          { encoding: 'utf8', env: { ...process.env, SCARF_ANALYTICS: 'false' } });
        console.log(`${ruleset}: ${output.trim() || 'no errors or warnings'}`);
      } catch (error) {
        failed += 1;
        console.error(`FAIL: ${ruleset}:\n${error.stdout || ''}${error.stderr || ''}`);
      }
    }
  } finally {
    await agent.stop();
    fs.rmSync(scratch, { recursive: true, force: true });
  }
  if (failed) process.exit(1);
}

main().catch((error) => {
  console.error(error.stack || String(error));
  process.exit(1);
});
