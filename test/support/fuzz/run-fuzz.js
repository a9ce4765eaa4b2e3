#!/usr/bin/env node
/*
 * `npm run fuzz -- --runs N --seed S`: the fuzz harness (test/integration/fuzz.test.ts) with more cases
 * and another seed than CI's. N is the total number of cases, spread over the classes (default 200);
 * other arguments go to jest (e.g. -t 'model/deep-args' to run one class).
 */
'use strict';
const { spawnSync } = require('node:child_process');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '../../..');
const env = { ...process.env };
const rest = [];
const args = process.argv.slice(2);
for (let i = 0; i < args.length; i++) {
  const [flag, inline] = args[i].split('=', 2);
  const value = () => (inline !== undefined ? inline : args[++i]);
  if (flag === '--runs') env.TILLER_FUZZ_RUNS = value();
  else if (flag === '--seed') env.TILLER_FUZZ_SEED = value();
  else rest.push(args[i]);
}
env.TILLER_FUZZ_RUNS ??= '200';
const jest = path.join(ROOT, 'node_modules', 'jest', 'bin', 'jest.js');
// The test file first: an option that takes a list (--selectProjects …) would swallow it.
const r = spawnSync(process.execPath, [jest, 'test/integration/fuzz.test.ts', ...rest], {
  cwd: ROOT,
  env,
  stdio: 'inherit',
});
process.exit(r.status ?? 1);
