#!/usr/bin/env node
/*
 * One step from a fresh clone to a runnable project: installs the npm dependencies when they are
 * missing, then locates (or installs) the Temporal binaries through ensure-temporal.js.
 *
 *   node scripts/bootstrap.js [--quiet] [--cli-only]
 *
 * --quiet     say nothing unless something has to be installed or fails
 * --cli-only  only the Temporal CLI (enough for `tiller dev`), not the time-skipping test server
 *
 * Plain CommonJS with no dependencies: it runs before `npm ci`.
 */
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');

function depsMissing() {
  return ['node_modules/.bin/jest', 'node_modules/@temporalio/worker'].filter(
    (p) => !fs.existsSync(path.join(ROOT, p)),
  );
}

function installDeps(quiet) {
  const missing = depsMissing();
  if (missing.length === 0) return;
  const args = fs.existsSync(path.join(ROOT, 'package-lock.json')) ? ['ci'] : ['install'];
  process.stderr.write(`[bootstrap] ${missing.join(' and ')} missing: running npm ${args[0]}\n`);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const r = spawnSync(npm, args, { cwd: ROOT, stdio: 'inherit', shell: process.platform === 'win32' });
  if (r.error) throw new Error(`could not run npm ${args[0]}: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`npm ${args[0]} failed with exit code ${r.status}`);
  const still = depsMissing();
  if (still.length) throw new Error(`npm ${args[0]} finished but ${still.join(' and ')} is still missing`);
  if (!quiet) process.stderr.write('[bootstrap] npm dependencies installed\n');
}

/**
 * Whether `version` (e.g. `20.19.2`) is in an engines range made of `^X.Y.Z` and `>=X[.Y[.Z]]` clauses
 * joined by `||` (package.json's form; no semver package before `npm ci`). An unreadable clause allows.
 */
function nodeSupported(range, version) {
  const parse = (v) =>
    v
      .replace(/^v/, '')
      .split('.')
      .map((n) => Number(n) || 0);
  const [major, minor, patch] = parse(version);
  const atLeast = ([a, b = 0, c = 0]) => (major !== a ? major > a : minor !== b ? minor > b : patch >= c);
  return range.split('||').some((clause) => {
    const c = clause.trim();
    if (c.startsWith('^')) {
      const min = parse(c.slice(1));
      return major === min[0] && atLeast(min);
    }
    if (c.startsWith('>=')) return atLeast(parse(c.slice(2).trim()));
    return true;
  });
}

/** Refuses, saying why, to run on a Node older than package.json's `engines` (what the dependencies need). */
function checkNode() {
  const range = require(path.join(ROOT, 'package.json')).engines?.node;
  if (!range || nodeSupported(range, process.versions.node)) return;
  throw new Error(
    `Tiller needs Node ${range} (package.json engines: what its dependencies declare); this is Node ` +
      `${process.versions.node}. Install a supported Node (e.g. \`nvm install 22\`) and run the command again`,
  );
}

function main() {
  const quiet = process.argv.includes('--quiet');
  const needTestServer = !process.argv.includes('--cli-only');
  try {
    checkNode();
    installDeps(quiet);
    const { ensureTemporal } = require('./ensure-temporal.js');
    const { cli, testServer } = ensureTemporal({ quiet, needTestServer });
    if (!quiet) {
      process.stderr.write(`[bootstrap] temporal CLI: ${cli}\n`);
      if (testServer) process.stderr.write(`[bootstrap] test server: ${testServer}\n`);
    }
  } catch (err) {
    process.stderr.write(`[bootstrap] ${err && err.message ? err.message : err}\n`);
    process.stderr.write(
      '[bootstrap] the project is not ready; fix the above and run `node scripts/bootstrap.js` again\n',
    );
    process.exit(1);
  }
}

if (require.main === module) main();

module.exports = { nodeSupported };
