#!/usr/bin/env node
/*
 * Tiller as a user meets it (issue 32): `npm pack` this checkout, install the tarball into scratch
 * projects in private (0700) folders outside it — one ESM TypeScript project, one CommonJS one — and in
 * each: check that the install brings one Temporal SDK version and no engine warning, that the root
 * entry has at most 60 names, that a strict type check passes (nodenext, and bundler for ESM), then
 * define an agent and a gated tool there, run a turn against a real local Temporal dev server with the
 * scripted model from `@tiller-agents/tiller/testing`, approve it with `npx tiller approve` run from that
 * project's directory, and check the result. The ESM project also compiles every TypeScript block of
 * README.md and docs/*.md (a block whose first line is `// fragment` is skipped).
 *
 *   node scripts/consumer-test.mjs [--keep] [--only esm|cjs] [--tarball <file.tgz>]
 *
 * --keep     leave the scratch projects (their paths are printed)
 * --tarball  use this packed tarball instead of running `npm pack` (while working on this script)
 *
 * Ends with `consumer: N passed, N failed` and exits non-zero on a failure. Repo-only: not in the package.
 */
import { spawnSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { setTimeout, clearTimeout } from 'node:timers';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { docBlocks } from './consumer/doc-blocks.mjs';
import { agentSource, runSource } from './consumer/sources.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const NAME = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).name;
const keep = process.argv.includes('--keep');
const given = process.argv.includes('--tarball')
  ? path.resolve(process.argv[process.argv.indexOf('--tarball') + 1])
  : undefined;
const only = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1] : undefined;
const results = [];

function sh(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 << 20, timeout: 15 * 60_000, ...opts });
  return { ok: r.status === 0, out: `${r.stdout ?? ''}${r.stderr ?? ''}`, status: r.status };
}

function check(name, ok, detail = '') {
  results.push({ name, ok });
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${name}${detail ? `: ${detail}` : ''}`);
  return ok;
}

function privateDir(prefix) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  fs.chmodSync(dir, 0o700);
  return dir;
}

function pack() {
  const dest = privateDir('tiller-pack-');
  const r = sh('npm', ['pack', '--json', '--pack-destination', dest], { cwd: ROOT });
  if (!r.ok) throw new Error(`npm pack failed:\n${r.out.slice(-3000)}`);
  const json = r.out.slice(r.out.search(/^\[/m));
  const info = JSON.parse(json.slice(0, json.search(/^\]/m) + 1))[0];
  const files = info.files.map((f) => f.path);
  check(
    'tarball has dist, bin, README, LICENSE and CHANGELOG',
    ['dist/src/index.js', 'bin/tiller.js', 'README.md', 'LICENSE', 'CHANGELOG.md'].every((f) => files.includes(f)),
  );
  const repoOnly = files.filter((f) => /^(scripts\/(bench|soak|capacity|cluster)|test\/|src\/)/.test(f));
  check('tarball has no repo-only sources', repoOnly.length === 0, repoOnly.slice(0, 5).join(', '));
  return path.join(dest, info.filename);
}

function writeProject(dir, kind, tarball) {
  const esm = kind === 'esm';
  const pkg = { name: `scratch-${kind}`, version: '0.0.0', private: true, type: esm ? 'module' : 'commonjs' };
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify(pkg, null, 2));
  const base = { strict: true, target: 'ES2022', skipLibCheck: true, outDir: 'dist', rootDir: 'src', types: ['node'] };
  const nodenext = { compilerOptions: { ...base, module: 'nodenext', moduleResolution: 'nodenext' }, include: ['src'] };
  fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify(nodenext, null, 2));
  if (esm) {
    const bundler = {
      compilerOptions: { ...base, module: 'esnext', moduleResolution: 'bundler', noEmit: true },
      include: ['src'],
    };
    fs.writeFileSync(path.join(dir, 'tsconfig.bundler.json'), JSON.stringify(bundler, null, 2));
  }
  fs.mkdirSync(path.join(dir, 'src'));
  fs.writeFileSync(path.join(dir, 'src', 'agent.ts'), agentSource(NAME));
  fs.writeFileSync(path.join(dir, 'src', 'run.ts'), runSource(NAME, esm));
  const install = sh(
    'npm',
    ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball, 'zod@^4', 'typescript@~5.9', '@types/node@^20'],
    { cwd: dir },
  );
  check(`${kind}: npm install of the tarball`, install.ok, install.ok ? '' : install.out.slice(-2000));
  check(`${kind}: no engine warning`, !/EBADENGINE/.test(install.out), install.out.match(/.*EBADENGINE.*/)?.[0]);
  const ls = sh('npm', ['ls', '--all', '--json'], { cwd: dir });
  const versions = new Set([...ls.out.matchAll(/"@temporalio\/[a-z-]+": \{\s*"version": "([^"]+)"/g)].map((m) => m[1]));
  check(`${kind}: one Temporal SDK version`, versions.size === 1, [...versions].join(', '));
}

function typecheck(dir, kind) {
  const tsc = path.join(dir, 'node_modules', '.bin', 'tsc');
  const r = sh(tsc, ['-p', 'tsconfig.json'], { cwd: dir });
  check(`${kind}: strict type check and build (nodenext)`, r.ok, r.out.slice(-3000));
  if (kind === 'esm') {
    const b = sh(tsc, ['-p', 'tsconfig.bundler.json'], { cwd: dir });
    check('esm: strict type check (bundler)', b.ok, b.out.slice(-3000));
  }
  return r.ok;
}

function rootNames(dir, kind) {
  const code =
    kind === 'esm'
      ? `import * as t from '${NAME}'; console.log(Object.keys(t).filter((k) => k !== 'default').length)`
      : `console.log(Object.keys(require('${NAME}')).length)`;
  const r = sh(process.execPath, [kind === 'esm' ? '--input-type=module' : '--input-type=commonjs', '-e', code], {
    cwd: dir,
  });
  const n = Number(r.out.trim());
  check(`${kind}: root entry has at most 60 run-time names`, r.ok && n > 0 && n <= 60, r.ok ? `${n}` : r.out);
  const api = fs.readFileSync(path.join(ROOT, 'api', 'index.api.md'), 'utf8');
  const names = new Set(
    [
      ...api.matchAll(
        /^export (?:declare )?(?:abstract )?(?:function|class|const|type|interface|namespace|enum) (\w+)/gm,
      ),
    ].map((m) => m[1]),
  );
  check(`${kind}: root entry has at most 60 names with types (api/index.api.md)`, names.size <= 60, `${names.size}`);
}

/** Runs the gated turn: the scratch project's run.js starts everything, `npx tiller approve` decides. */
async function gatedTurn(dir, kind) {
  const child = spawn(process.execPath, ['dist/run.js'], { cwd: dir, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  let approved = false;
  const done = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
  child.stdout.on('data', (chunk) => {
    out += chunk.toString();
    process.stdout.write(`  [${kind}] ${chunk}`);
    const m = /^WAITING (\S+) (\S+) (\S+)$/m.exec(out);
    if (m && !approved) {
      approved = true;
      const [, address, turnId, callId] = m;
      const env = { ...process.env, TEMPORAL_ADDRESS: address, TILLER_TASK_QUEUE: `scratch-${kind}` };
      const a = sh('npx', ['--no-install', 'tiller', 'approve', turnId, callId, '--as', 'ops'], { cwd: dir, env });
      check(
        `${kind}: npx tiller approve from the project's directory`,
        a.ok,
        a.out.trim().split('\n').slice(-3).join(' | '),
      );
    }
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), 15 * 60_000); // a first run installs the Temporal CLI
  const code = await done;
  clearTimeout(timer);
  check(
    `${kind}: the gated turn completed with the tool's result`,
    code === 0 && /^RESULT ok/m.test(out),
    `exit ${code}`,
  );
}

/** The CLI's own commands that need files of the package (the Temporal CLI it installed, the workflows). */
function cliCommands(dir) {
  const t = sh('npx', ['--no-install', 'tiller', 'temporal', '--version'], { cwd: dir });
  check(
    'npx tiller temporal --version (the passthrough) from the project',
    t.ok && /temporal version/.test(t.out),
    t.out.trim().slice(-300),
  );
  const out = path.join(dir, 'workflow-bundle.js');
  const b = sh('npx', ['--no-install', 'tiller', 'bundle', out], { cwd: dir });
  check(
    'npx tiller bundle from the project',
    b.ok && fs.existsSync(out) && fs.statSync(out).size > 100_000,
    b.out.trim().slice(-300),
  );
}

async function project(kind, tarball) {
  const dir = privateDir(`tiller-consumer-${kind}-`);
  console.log(`\n== ${kind} project in ${dir}`);
  writeProject(dir, kind, tarball);
  if (kind === 'esm') {
    const docs = docBlocks(ROOT);
    fs.mkdirSync(path.join(dir, 'src', 'docs'));
    for (const b of docs.blocks) {
      fs.mkdirSync(path.dirname(path.join(dir, 'src', 'docs', b.file)), { recursive: true });
      fs.writeFileSync(path.join(dir, 'src', 'docs', b.file), b.code);
    }
    check(
      `docs: ${docs.blocks.length} TypeScript blocks to compile (${docs.fragments} marked as fragments)`,
      docs.blocks.length > 0,
    );
  }
  rootNames(dir, kind);
  if (typecheck(dir, kind)) await gatedTurn(dir, kind);
  if (kind === 'esm') cliCommands(dir);
  if (!keep) fs.rmSync(dir, { recursive: true, force: true });
}

const tarball = given ?? pack();
for (const kind of ['esm', 'cjs']) if (!only || only === kind) await project(kind, tarball);
if (!keep && !given) fs.rmSync(path.dirname(tarball), { recursive: true, force: true });
const failed = results.filter((r) => !r.ok).length;
console.log(`\nconsumer: ${results.length - failed} passed, ${failed} failed`);
fs.mkdirSync(path.join(ROOT, 'test-artifacts'), { recursive: true });
const summary = { passed: results.length - failed, failed, checks: results };
fs.writeFileSync(path.join(ROOT, 'test-artifacts', 'summary-consumer.json'), JSON.stringify(summary, null, 2));
process.exit(failed ? 1 : 0);
