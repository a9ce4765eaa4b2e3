/**
 * The `Cluster` handle on a local dev server, so the soak runs before (and without) the production
 * shape: `frontend` is `temporal server start-dev` on a SQLite file (all services in one process; a
 * restart keeps every turn), `worker-1..N` run `ClusterOptions.workerCommand`, `gateway` is
 * `node bin/tiller.js serve` with a fresh bearer token. No `postgres`, `history` or `matching`.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, startDevServer, type DevServer } from '../../src/testing/dev-server';
import { hashToken } from '../../src/gateway';
import type { Cluster, ClusterOptions, ClusterProcess, ProcessRole } from '../cluster/types';
import { RestartableChild } from './child';
import { ROOT } from './deciders';

const TASK_QUEUE = 'tiller-soak';
const NAMESPACE = 'default';
/** The gateway's caller: may start, read and decide (never the starter of the soak's turns). */
const GATEWAY_CALLER = 'soak-gateway';

interface Managed {
  name: string;
  role: ProcessRole;
  log: string;
  pid(): number | undefined;
  start(): Promise<void>;
  kill(signal: NodeJS.Signals): Promise<void>;
}

/** The dev server as a managed process: killed and started again on the same port and SQLite file. */
function frontend(cli: string, port: number, dir: string): Managed {
  const log = path.join(dir, 'frontend.log');
  const dbFilename = path.join(dir, 'temporal.sqlite');
  let server: DevServer | undefined;
  return {
    name: 'frontend',
    role: 'frontend',
    log,
    pid: () =>
      server && server.process.exitCode === null && server.process.signalCode === null ? server.process.pid : undefined,
    async start() {
      server = await startDevServer({ cli, port, dbFilename, logLevel: 'warn' });
      const out = fs.createWriteStream(log, { flags: 'a' });
      server.process.stdout?.pipe(out);
      server.process.stderr?.pipe(out);
    },
    async kill(signal) {
      const child = server?.process;
      if (!child || child.exitCode !== null || child.signalCode !== null) return;
      const gone = new Promise((resolve) => child.once('close', resolve));
      child.kill(signal);
      await gone;
    },
  };
}

function child(name: string, role: ProcessRole, spec: ConstructorParameters<typeof RestartableChild>[0]): Managed {
  const c = new RestartableChild(spec);
  return { name, role, log: spec.log, pid: () => c.pid, start: () => c.start(), kill: (s) => c.kill(s) };
}

export async function startDevCluster(cli: string, opts: ClusterOptions = {}): Promise<Cluster> {
  const log = opts.log ?? (() => undefined);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tiller-soak-dev-'));
  const port = opts.port ?? (await freePort());
  const address = `127.0.0.1:${port}`;
  const temporalEnv = { TEMPORAL_ADDRESS: address, TEMPORAL_NAMESPACE: NAMESPACE, TILLER_TASK_QUEUE: TASK_QUEUE };
  const token = randomBytes(24).toString('base64url');
  const gatewayPort = await freePort();
  const worker = opts.workerCommand ?? {
    command: process.execPath,
    args: [path.join(ROOT, 'bin/tiller.js'), 'worker'],
  };

  const managed: Managed[] = [frontend(cli, port, dir)];
  for (let i = 1; i <= (opts.workers ?? 2); i++) {
    managed.push(
      child(`worker-${i}`, 'tiller-worker', {
        command: worker.command,
        args: worker.args,
        env: { ...opts.env, ...temporalEnv },
        cwd: ROOT,
        log: path.join(dir, `worker-${i}.log`),
        ready: worker.readyPattern ?? /^ready$/m,
      }),
    );
  }
  if (opts.gateway ?? true) {
    const tokens = [
      { name: GATEWAY_CALLER, sha256: hashToken(token), scopes: ['read', 'start', 'decide', 'cancel', 'args'] },
    ];
    managed.push(
      child('gateway', 'gateway', {
        command: process.execPath,
        args: [path.join(ROOT, 'bin/tiller.js'), 'serve', '--host', '127.0.0.1', '--port', String(gatewayPort)],
        env: {
          ...opts.env,
          ...temporalEnv,
          TILLER_GATEWAY_TOKENS: JSON.stringify(tokens),
          TILLER_GATEWAY_RATE_LIMIT: 'off',
        },
        cwd: ROOT,
        log: path.join(dir, 'gateway.log'),
        ready: /tiller gateway at /,
      }),
    );
  }

  const byName = (name: string): Managed => {
    const m = managed.find((p) => p.name === name);
    if (!m) throw new Error(`no process named ${name} (have ${managed.map((p) => p.name).join(', ')})`);
    return m;
  };
  const down = async (): Promise<void> => {
    await Promise.all(managed.slice(1).map((m) => m.kill('SIGTERM')));
    await managed[0]!.kill('SIGTERM');
  };

  try {
    log(`dev cluster in ${dir}: frontend ${address}`);
    await managed[0]!.start();
    // Workers one at a time: each checks and registers the search attributes at start.
    for (const m of managed.slice(1)) {
      await m.start();
      log(`${m.name} ready (pid ${m.pid()})`);
    }
  } catch (err) {
    await down();
    throw err;
  }

  return {
    address,
    namespace: NAMESPACE,
    taskQueue: TASK_QUEUE,
    description:
      'a local dev server (`temporal server start-dev`) on SQLite: all Temporal services in one process, no PostgreSQL',
    ...((opts.gateway ?? true) && { gateway: { url: `http://127.0.0.1:${gatewayPort}`, token } }),
    temporalCli: cli,
    // The dev server has no TLS and no authorization.
    secured: false,
    clientEnv: () => ({ TEMPORAL_ADDRESS: address, TEMPORAL_NAMESPACE: NAMESPACE, TILLER_TASK_QUEUE: TASK_QUEUE }),
    token: () => Promise.reject(new Error('the dev server takes no tokens')),
    processes: (): ClusterProcess[] =>
      managed.map((m) => {
        const pid = m.pid();
        return { name: m.name, role: m.role, log: m.log, ...(pid !== undefined && { pid }) };
      }),
    kill: (name, signal = 'SIGKILL') => byName(name).kill(signal),
    start: async (name) => {
      const m = byName(name);
      if (m.pid() !== undefined) throw new Error(`${name} is running (pid ${m.pid()})`);
      await m.start();
    },
    down,
  };
}
