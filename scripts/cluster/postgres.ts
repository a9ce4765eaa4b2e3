/**
 * PostgreSQL for the cluster: Debian's server binaries (installed with apt when missing), one data
 * directory, listening on loopback only with password authentication. `initdb` and `pg_ctl` refuse to
 * run as root, so as root they run as the `postgres` user — which may not be able to enter the checkout
 * (a clone under /root, in a 0700 `mktemp -d`): its home is then a directory Tiller creates for it
 * outside the checkout (`postgresHome`).
 */
import { execFile, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export interface PostgresOptions {
  /**
   * The server's own directory, owner-only, owned by the user it runs as: `data/` (with its log and
   * socket) and, while `initdb` runs, the password file. See `postgresHome`.
   */
  home: string;
  port: number;
  user: string;
  password: string;
  /** Extra server settings, passed as `-c name=value`. */
  settings?: Record<string, string>;
  log: (line: string) => void;
}

/**
 * Separate frontend, history, matching and worker services each open up to SQL_MAX_CONNS (20) +
 * SQL_VIS_MAX_CONNS (10) connections: 120 for one of each, more than PostgreSQL's default 100.
 */
export const MAX_CONNECTIONS = 300;

const isRoot = () => process.getuid?.() === 0;

/** Where Tiller keeps the homes of clusters' PostgreSQL servers when it runs them as `postgres`. */
export const POSTGRES_HOMES = '/var/lib/tiller';

/**
 * The directory PostgreSQL keeps its data, log, socket and (briefly) its password file in, for the
 * cluster whose state lives in `clusterDir`. Run by the checkout's own user it is `<clusterDir>/postgres`.
 * Run as root, PostgreSQL runs as `postgres`, which must not depend on reaching the checkout: the home
 * is `/var/lib/tiller/<hash of the cluster directory>` (one per checkout, kept across `up`/`down`),
 * created by Tiller and owned by `postgres`, mode 0700. `TILLER_CLUSTER_POSTGRES_HOME` overrides it.
 */
export function postgresHome(clusterDir: string, env: NodeJS.ProcessEnv = process.env, root = isRoot()): string {
  if (env.TILLER_CLUSTER_POSTGRES_HOME) return path.resolve(env.TILLER_CLUSTER_POSTGRES_HOME);
  if (!root) return path.join(clusterDir, 'pg');
  const id = createHash('sha256').update(path.resolve(clusterDir)).digest('hex').slice(0, 16);
  return path.join(POSTGRES_HOMES, `cluster-${id}`);
}

function run(cmd: string, args: string[], asPostgres = false): { ok: boolean; out: string } {
  const [c, a] = asPostgres && isRoot() ? ['runuser', ['-u', 'postgres', '--', cmd, ...args]] : [cmd, args];
  const r = spawnSync(c, a, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  return { ok: r.status === 0, out: `${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? r.error.message : ''}`.trim() };
}

/** `run` without blocking the event loop (a soak's model and ledger live in the same process). */
function runAsync(cmd: string, args: string[]): Promise<{ ok: boolean; out: string }> {
  const [c, a] = isRoot() ? ['runuser', ['-u', 'postgres', '--', cmd, ...args]] : [cmd, args];
  return new Promise((resolve) => {
    execFile(c, a, { encoding: 'utf8' }, (err, stdout, stderr) =>
      resolve({ ok: !err, out: `${stdout}${stderr}${err && !stderr ? err.message : ''}`.trim() }),
    );
  });
}

function findBinDir(): string | undefined {
  const base = '/usr/lib/postgresql';
  const versions = fs.existsSync(base)
    ? fs
        .readdirSync(base)
        .filter((v) => /^\d+$/.test(v) && fs.existsSync(path.join(base, v, 'bin', 'pg_ctl')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions[0]) return path.join(base, versions[0], 'bin');
  const which = run('sh', ['-c', 'command -v pg_ctl']);
  return which.ok && which.out ? path.dirname(fs.realpathSync(which.out)) : undefined;
}

/** PostgreSQL's bin directory; installs Debian's `postgresql` package when there is none. */
export function ensurePostgres(log: (line: string) => void): string {
  const found = findBinDir();
  if (found) return found;
  const sudo = isRoot() ? [] : ['sudo', '-n'];
  log('PostgreSQL is not installed: apt-get install postgresql');
  const apt = (args: string[]) =>
    spawnSync(sudo[0] ?? 'apt-get', [...sudo.slice(1), ...(sudo.length ? ['apt-get'] : []), ...args], {
      stdio: 'inherit',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    }).status === 0;
  if (!apt(['update', '-qq']) || !apt(['install', '-y', '-qq', 'postgresql'])) {
    throw new Error('could not install PostgreSQL: run `apt-get install postgresql` (Debian/Ubuntu) and try again');
  }
  const installed = findBinDir();
  if (!installed) throw new Error('PostgreSQL was installed but pg_ctl is not under /usr/lib/postgresql/*/bin');
  return installed;
}

export class Postgres {
  constructor(
    private readonly bin: string,
    readonly opts: PostgresOptions,
  ) {}

  get dataDir(): string {
    return path.join(this.opts.home, 'data');
  }

  get logFile(): string {
    return path.join(this.dataDir, 'server.log');
  }

  /**
   * Creates the data directory (once) with the cluster's user as superuser. The password file goes
   * inside the data directory's own (owner-only) directory, never through the checkout: as root the
   * `postgres` user must read it, and nothing on the way to it is assumed world-readable.
   */
  init(): void {
    const { home, user, password } = this.opts;
    const dataDir = this.dataDir;
    if (fs.existsSync(path.join(dataDir, 'PG_VERSION'))) return;
    // The parent of every home (/var/lib/tiller) is only a way through: root-owned, 0755.
    fs.mkdirSync(path.dirname(home), { recursive: true, mode: 0o755 });
    fs.mkdirSync(home, { recursive: true, mode: 0o700 });
    fs.chmodSync(home, 0o700);
    // What a failed initdb left (no PG_VERSION): initdb wants an empty or absent directory.
    fs.rmSync(dataDir, { recursive: true, force: true });
    const pwfile = path.join(home, 'pgpass.init');
    fs.writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
    if (isRoot()) this.chownToPostgres(home);
    const r = run(
      path.join(this.bin, 'initdb'),
      [
        '-D',
        dataDir,
        '-U',
        user,
        `--pwfile=${pwfile}`,
        '--auth-local=trust',
        '--auth-host=scram-sha-256',
        '-E',
        'UTF8',
        '--locale=C',
      ],
      true,
    );
    fs.rmSync(pwfile, { force: true });
    if (!r.ok) throw new Error(`initdb failed:\n${r.out}`);
    this.opts.log(`PostgreSQL data directory: ${dataDir}`);
  }

  private chownToPostgres(p: string): void {
    const r = run('chown', ['-R', 'postgres:postgres', p]);
    if (!r.ok) throw new Error(`chown postgres ${p}: ${r.out} (is there a postgres user? Debian's package makes one)`);
  }

  start(): void {
    const { port } = this.opts;
    const dataDir = this.dataDir;
    const extra = Object.entries(this.opts.settings ?? {}).map(([name, value]) => ` -c ${name}=${value}`);
    const options = `-p ${port} -k ${dataDir} -c listen_addresses=127.0.0.1 -c max_connections=${MAX_CONNECTIONS}${extra.join('')}`;
    const r = run(
      path.join(this.bin, 'pg_ctl'),
      ['-D', dataDir, '-l', this.logFile, '-o', options, '-w', 'start'],
      true,
    );
    if (!r.ok) throw new Error(`pg_ctl start failed:\n${r.out}\n${this.tail()}`);
  }

  /** `immediate` is a crash (no checkpoint, recovery on the next start); `fast` a clean shutdown. */
  async stop(mode: 'fast' | 'immediate' = 'fast'): Promise<void> {
    if (!this.pid()) return;
    const r = await runAsync(path.join(this.bin, 'pg_ctl'), ['-D', this.dataDir, '-m', mode, '-w', 'stop']);
    if (!r.ok && this.pid()) throw new Error(`pg_ctl stop failed:\n${r.out}`);
  }

  /** The postmaster's pid while it runs. */
  pid(): number | undefined {
    try {
      const pid = Number(fs.readFileSync(path.join(this.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
      process.kill(pid, 0);
      return pid;
    } catch {
      return undefined;
    }
  }

  private tail(): string {
    try {
      return fs.readFileSync(this.logFile, 'utf8').split('\n').slice(-20).join('\n');
    } catch {
      return '';
    }
  }
}
