/**
 * PostgreSQL for the cluster: Debian's server binaries (installed with apt when missing), one data
 * directory, listening on loopback only with scram-sha-256 password authentication, its socket inside
 * its owner-only home. The superuser (`postgres`) has a password nobody keeps and is reached only over
 * that socket; the server's role is made by ./database.ts. `initdb` and `pg_ctl` refuse to
 * run as root, so as root they run as the `postgres` user — which may not be able to enter the checkout
 * (a clone under /root, in a 0700 `mktemp -d`): its home is then a directory Tiller creates for it
 * outside the checkout (`postgresHome`).
 */
import { execFile, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export interface PostgresOptions {
  /**
   * The server's own directory, owner-only, owned by the user it runs as: `data/` (with its log and
   * socket) and, while `initdb` runs, the password file. See `postgresHome`.
   */
  home: string;
  port: number;
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

function run(cmd: string, args: string[], asPostgres = false, input?: string): { ok: boolean; out: string } {
  const [c, a] = asPostgres && isRoot() ? ['runuser', ['-u', 'postgres', '--', cmd, ...args]] : [cmd, args];
  // From `/`: `postgres` may not enter the checkout (psql would warn about it, into its output).
  const r = spawnSync(c, a, { cwd: '/', encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'], input: input ?? '' });
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

  /** Marks a data directory made this way (superuser `postgres`): one made before, with the server's role as its superuser, is made again. */
  private get marker(): string {
    return path.join(this.opts.home, 'superuser-postgres');
  }

  /**
   * Creates the data directory (once) with `postgres` as superuser, its password random and thrown
   * away (the socket in the owner-only home is the superuser's only way in). The password file goes
   * inside the home, never through the checkout: as root the `postgres` user must read it, and nothing
   * on the way to it is assumed world-readable.
   */
  init(): void {
    const { home } = this.opts;
    const dataDir = this.dataDir;
    if (fs.existsSync(path.join(dataDir, 'PG_VERSION')) && fs.existsSync(this.marker)) return;
    if (fs.existsSync(path.join(dataDir, 'PG_VERSION')))
      this.opts.log(`PostgreSQL: ${dataDir} has the server's role as superuser (made before issue 33): made again`);
    // The parent of every home (/var/lib/tiller) is only a way through: root-owned, 0755.
    fs.mkdirSync(path.dirname(home), { recursive: true, mode: 0o755 });
    fs.mkdirSync(home, { recursive: true, mode: 0o700 });
    fs.chmodSync(home, 0o700);
    // What a failed initdb left (no PG_VERSION): initdb wants an empty or absent directory.
    fs.rmSync(dataDir, { recursive: true, force: true });
    const pwfile = path.join(home, 'pgpass.init');
    fs.writeFileSync(pwfile, `${randomBytes(32).toString('base64url')}\n`, { mode: 0o600 });
    if (isRoot()) this.chownToPostgres(home);
    const r = run(
      path.join(this.bin, 'initdb'),
      [
        '-D',
        dataDir,
        '-U',
        'postgres',
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
    fs.writeFileSync(this.marker, 'the superuser is postgres (issue 33)\n', { mode: 0o600 });
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
    const options = `-p ${port} -k ${dataDir} -c listen_addresses=127.0.0.1 -c password_encryption=scram-sha-256 -c max_connections=${MAX_CONNECTIONS} -c autovacuum_naptime=10s${extra.join('')}`;
    const r = run(
      path.join(this.bin, 'pg_ctl'),
      ['-D', dataDir, '-l', this.logFile, '-o', options, '-w', 'start'],
      true,
    );
    if (!r.ok) throw new Error(`pg_ctl start failed:\n${r.out}\n${this.tail()}`);
  }

  /** Runs `sql` (on stdin, never in argv) as the superuser over the socket; its output, or throws. */
  psql(sql: string, db = 'postgres'): string {
    const args = ['-X', '-q', '-tA', '-v', 'ON_ERROR_STOP=1', '-h', this.dataDir, '-p', String(this.opts.port)];
    const r = run(path.join(this.bin, 'psql'), [...args, '-U', 'postgres', '-d', db, '-f', '-'], true, sql);
    if (!r.ok) throw new Error(`psql (${db}) failed:\n${r.out}`);
    return r.out;
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
