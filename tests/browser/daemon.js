// Starts `hostprobe serve` for the browser tests (page_test.js, audits.js) on a free port and
// stops every daemon it started.
'use strict';

const { spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const readline = require('node:readline');

const WAIT_MS = 60000;

class Daemons {
  constructor(binary, scratch) {
    this.binary = binary;
    this.scratch = scratch;
    this.children = [];
  }

  // Resolves with the base URL once the daemon logs msg=listening address=HOST:PORT.
  start(name, args, env = {}) {
    const stateDir = fs.mkdtempSync(path.join(this.scratch, `${name}-state-`));
    const child = spawn(this.binary, ['serve', '--listen', '127.0.0.1:0', '--state-dir', stateDir, ...args], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.children.push(child);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${name}: no "msg=listening" line within ${WAIT_MS} ms`)), WAIT_MS);
      child.on('exit', (code) => reject(new Error(`${name}: hostprobe serve exited with ${code}`)));
      for (const stream of [child.stdout, child.stderr]) {
        readline.createInterface({ input: stream }).on('line', (line) => {
          const match = /msg=listening address=(\S+)/.exec(line);
          if (match) {
            clearTimeout(timer);
            resolve(`http://${match[1]}`);
          }
        });
      }
    });
  }

  stopAll() {
    for (const child of this.children) child.kill('SIGTERM');
  }
}

module.exports = { Daemons, WAIT_MS };
