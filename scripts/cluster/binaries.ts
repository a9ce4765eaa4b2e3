/**
 * The Temporal server and its SQL schema tool, built from source with the Go module proxy (there is
 * no Docker here) and cached under `.tools/temporal-server/v<version>/` — the second `up` takes
 * seconds. The PostgreSQL schema files ship in the server module; they are copied next to the binaries.
 *
 * Temporal 1.32 needs a newer Go than many machines have: GOTOOLCHAIN names the approved toolchain,
 * which `go` itself fetches through the module proxy.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from './compose';

/** The Go toolchain the server build uses (Temporal 1.32 needs Go ≥ 1.27). */
export const GO_TOOLCHAIN = 'go1.27.3';

export interface ServerBinaries {
  version: string;
  /**
   * Tiller's server program (deploy/temporal/server: the stock server with Tiller's claim mapper and
   * authorizer compiled in); it runs unsecured with TILLER_AUTH=off.
   */
  server: string;
  sqlTool: string;
  /** `…/schema/postgresql/v12` with `temporal/` and `visibility/`. */
  postgresSchema: string;
}

function goEnv(): NodeJS.ProcessEnv {
  return { ...process.env, GOTOOLCHAIN: GO_TOOLCHAIN, CGO_ENABLED: '0' };
}

function go(args: string[], env: NodeJS.ProcessEnv, inherit: boolean): string {
  const r = spawnSync('go', args, {
    cwd: ROOT,
    env,
    encoding: 'utf8',
    stdio: ['ignore', inherit ? 'inherit' : 'pipe', inherit ? 'inherit' : 'pipe'],
  });
  if (r.error) throw new Error(`go ${args[0]}: ${r.error.message} (is Go installed? https://go.dev/doc/install)`);
  if (r.status !== 0) throw new Error(`go ${args.join(' ')} failed (exit ${r.status})\n${r.stderr ?? ''}`);
  return (r.stdout ?? '').trim();
}

/** The module cache is read-only; its copies need not be (so `rm -rf .tools` works for anyone). */
function writable(p: string): void {
  const stat = fs.statSync(p);
  fs.chmodSync(p, stat.isDirectory() ? 0o755 : 0o644);
  if (stat.isDirectory()) for (const entry of fs.readdirSync(p)) writable(path.join(p, entry));
}

export function binariesDir(version: string): string {
  return path.join(ROOT, '.tools', 'temporal-server', `v${version}`);
}

/** The Go program in deploy/temporal/server (its module pins the same server version). */
export const SERVER_PROGRAM = path.join(ROOT, 'deploy', 'temporal', 'server');

/** A hash of the program's sources: a changed authorizer is a new binary. */
function programHash(): string {
  const hash = createHash('sha256');
  for (const file of fs.readdirSync(SERVER_PROGRAM).sort()) {
    if (!/\.go$|^go\.(mod|sum)$/.test(file)) continue;
    hash
      .update(file)
      .update('\0')
      .update(fs.readFileSync(path.join(SERVER_PROGRAM, file)));
  }
  return hash.digest('hex').slice(0, 12);
}

function checkPinnedVersion(version: string): void {
  const mod = fs.readFileSync(path.join(SERVER_PROGRAM, 'go.mod'), 'utf8');
  if (!new RegExp(`go\\.temporal\\.io/server v${version.replace(/\./g, '\\.')}\\b`).test(mod))
    throw new Error(
      `${SERVER_PROGRAM}/go.mod does not require go.temporal.io/server v${version} (docker-compose.yml's)`,
    );
}

/** Builds (or finds) the server, the SQL tool and the schema files for `version`. */
export function ensureServerBinaries(version: string, log: (line: string) => void): ServerBinaries {
  const dir = binariesDir(version);
  checkPinnedVersion(version);
  const found: ServerBinaries = {
    version,
    server: path.join(dir, `tiller-temporal-server-${programHash()}`),
    sqlTool: path.join(dir, 'temporal-sql-tool'),
    postgresSchema: path.join(dir, 'schema', 'postgresql', 'v12'),
  };
  const complete = [found.sqlTool, path.join(found.postgresSchema, 'temporal', 'versioned')].every((p) =>
    fs.existsSync(p),
  );
  if (!fs.existsSync(found.server)) buildProgram(found.server, log);
  if (complete) return found;

  const module = 'go.temporal.io/server';
  log(`building Temporal's SQL tool v${version} from source (${GO_TOOLCHAIN})`);
  const env = goEnv();
  const staging = path.join(dir, 'bin.partial');
  fs.rmSync(staging, { recursive: true, force: true });
  fs.mkdirSync(staging, { recursive: true });
  // disable_grpc_modules: the server's own build tag that leaves out gRPC's optional xDS modules.
  go(
    ['install', '-tags', 'disable_grpc_modules', `${module}/cmd/tools/sql@v${version}`],
    { ...env, GOBIN: staging },
    true,
  );
  const moduleDir = path.join(go(['env', 'GOMODCACHE'], env, false), `${module}@v${version}`);
  const schema = path.join(moduleDir, 'schema', 'postgresql', 'v12');
  if (!fs.existsSync(schema)) throw new Error(`the server module has no PostgreSQL schema at ${schema}`);
  fs.rmSync(path.join(dir, 'schema'), { recursive: true, force: true });
  fs.cpSync(schema, found.postgresSchema, { recursive: true });
  writable(path.join(dir, 'schema'));
  fs.renameSync(path.join(staging, 'sql'), found.sqlTool);
  fs.rmSync(staging, { recursive: true, force: true });
  log(`Temporal server v${version}: ${dir}`);
  return found;
}

/** `go build` of Tiller's server program into `out` (a first build takes ~7 min of both cores; then cached). */
function buildProgram(out: string, log: (line: string) => void): void {
  log(`building Tiller's Temporal server program (${SERVER_PROGRAM}, ${GO_TOOLCHAIN}; ~7 min the first time)`);
  fs.mkdirSync(path.dirname(out), { recursive: true });
  const partial = `${out}.partial`;
  const r = spawnSync('go', ['build', '-mod=readonly', '-tags', 'disable_grpc_modules', '-o', partial, '.'], {
    cwd: SERVER_PROGRAM,
    env: goEnv(),
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (r.error) throw new Error(`go build: ${r.error.message} (is Go installed? https://go.dev/doc/install)`);
  if (r.status !== 0) throw new Error(`go build of ${SERVER_PROGRAM} failed (exit ${r.status})`);
  fs.renameSync(partial, out);
}
