/*
 * The llama-server smoke test of scripts/ensure-llama.js (issue 34): a build is started with the model and
 * must answer `/health` and one completion before it is cached or used. Plain CommonJS, no dependencies.
 */
'use strict';
/* global fetch, AbortSignal */
const { spawn } = require('node:child_process');
const net = require('node:net');
const { setTimeout } = require('node:timers');

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/**
 * Starts `bin` with the model as the tests will (`--jinja`, one thread), waits for `/health` to answer
 * ok and asks for one short completion. Resolves undefined when all of that worked, else a sentence
 * saying what failed (a crash while loading the model is the case this exists for: issue 34).
 */
async function smokeTest(bin, model, log) {
  const port = await freePort();
  const args = ['--model', model, '--host', '127.0.0.1', '--port', String(port), '--jinja'];
  args.push('--ctx-size', '512', '--threads', '1', '--no-webui');
  const child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let tail = '';
  const keep = (chunk) => {
    tail = (tail + chunk.toString()).slice(-2_000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  let exited;
  const exit = new Promise((resolve) => child.on('exit', (code, signal) => resolve((exited = signal || code))));
  const base = `http://127.0.0.1:${port}`;
  try {
    const deadline = Date.now() + 120_000;
    for (;;) {
      if (exited !== undefined) return `it exited with ${exited} while loading the model:\n${tail}`;
      const ok = await fetch(`${base}/health`, { signal: AbortSignal.timeout(1_000) })
        .then((r) => r.ok)
        .catch(() => false);
      if (ok) break;
      if (Date.now() > deadline) return `/health did not answer ok within 120 s:\n${tail}`;
      await new Promise((r) => setTimeout(r, 250));
    }
    const res = await fetch(`${base}/completion`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'The capital of France is', n_predict: 4 }),
      signal: AbortSignal.timeout(60_000),
    }).catch((err) => ({ ok: false, status: String(err) }));
    if (!res.ok) return `a completion failed (${res.status}):\n${tail}`;
    const body = await res.json();
    if (typeof body.content !== 'string') return `a completion answered no text: ${JSON.stringify(body)}`;
    log(`smoke test passed: /health ok, a completion answered ${JSON.stringify(body.content)}`);
    return undefined;
  } finally {
    if (exited === undefined) {
      child.kill('SIGKILL');
      await exit;
    }
  }
}

module.exports = { smokeTest };
