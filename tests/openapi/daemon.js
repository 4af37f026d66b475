// A real `hostprobe serve` on an ephemeral loopback port, and plain HTTP requests to it: what
// the tests of this folder share.
'use strict';

const { spawn } = require('child_process');
const http = require('http');

// Starts `hostprobe serve` on an ephemeral port; resolves with {port, stop}.
function startDaemon(binary, args = [], env = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, ['serve', '--listen', '127.0.0.1:0', ...args], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let log = '';
    const timer = setTimeout(() => reject(new Error('no listening line in 30 s:\n' + log)), 30000);
    child.stderr.on('data', (chunk) => {
      log += chunk;
      const listening = /msg=listening address=\S*:(\d+)/.exec(log);
      if (listening && !child.port) {
        child.port = Number(listening[1]);
        clearTimeout(timer);
        resolve({
          port: child.port,
          stop: () => new Promise((done) => {
            if (child.exitCode !== null) return done();
            child.once('exit', done);
            child.kill('SIGTERM');
          }),
        });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (!child.port) reject(new Error('hostprobe exited ' + code + ':\n' + log));
    });
  });
}

// One request; resolves with {status, headers, body}. Any method, any Host header.
function request(port, method, target, { headers = {}, body } = {}) {
  // Content-Length always: Node would send a POST or PUT without a body chunked (411).
  const length = body === undefined ? 0 : Buffer.byteLength(body);
  if (method !== 'GET' || length) headers = { 'Content-Length': String(length), ...headers };
  return new Promise((resolve, reject) => {
    const sent = http.request({ host: '127.0.0.1', port, method, path: target, headers }, (res) => {
      const chunks = [];
      res.on('data', (chunk) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers,
                                    body: Buffer.concat(chunks).toString('utf8') }));
    });
    sent.on('error', reject);
    if (body !== undefined) sent.write(body);
    sent.end();
  });
}

module.exports = { startDaemon, request };
