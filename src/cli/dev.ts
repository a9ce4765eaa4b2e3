/**
 * `tiller dev`: a Temporal server (the one configured if it answers, else a local dev server that
 * persists to `.tiller/dev.db`), a worker in this process, and with `--demo` one demo turn.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@temporalio/client';
import { TillerClient } from '../client';
import { dataConverterFromEnv } from '../codec/encryption';
import type { TemporalSettings } from '../client/connect';
import { tillerCommand } from '../core/hints';
import { isTemporalReachable, startDevServer, type DevServer } from '../testing/dev-server';
import { workspaceRoot } from '../tools/files';
import { runCommand } from './commands';
import { CliError, EXIT, unreachable } from './errors';
import { loadEnsureTemporal } from '../testing/package-root';
import { connectOperator } from './temporal';
import { startCliWorker, untilSignal } from './worker';

export interface DevOptions {
  demo?: boolean;
  port?: number;
  uiPort: number;
  db?: string;
  as: string;
}

export const DEMO_AGENT = 'assistant';
export const DEMO_INPUT = 'Read notes.txt, then delete it.';

const NOTES = [
  'Hello from Tiller!',
  'This file lives in the demo workspace.',
  'The assistant may read it freely, but deleting it needs your approval.',
  '',
].join('\n');

const log = (line: string) => process.stdout.write(`${line}\n`);

function isLocal(address: string): boolean {
  const host = address.replace(/:\d+$/, '').replace(/^\[|\]$/g, '');
  return ['localhost', '127.0.0.1', '::1', '0.0.0.0'].includes(host);
}

function portOf(address: string): number | undefined {
  const m = /:(\d+)$/.exec(address);
  return m ? Number(m[1]) : undefined;
}

async function answers(settings: TemporalSettings, address: string): Promise<boolean> {
  if (isLocal(address) && !settings.connectionOptions.tls && !settings.connectionOptions.apiKey) {
    return isTemporalReachable(address);
  }
  try {
    await (
      await connectOperator({ ...settings, address, connectionOptions: { ...settings.connectionOptions, address } })
    ).close();
    return true;
  } catch {
    return false;
  }
}

/** Uses the server that answers, or starts one; returns the settings to use and the server to stop. */
async function server(
  settings: TemporalSettings,
  opts: DevOptions,
): Promise<{ settings: TemporalSettings; started?: DevServer }> {
  const target = opts.port !== undefined ? `127.0.0.1:${opts.port}` : settings.address;
  const using = { ...settings, address: target, connectionOptions: { ...settings.connectionOptions, address: target } };
  if (await answers(settings, target)) {
    log(`using the Temporal server at ${target} (namespace ${settings.namespace})`);
    return { settings: using };
  }
  if (!isLocal(target))
    throw unreachable(target, new Error('it does not answer (tiller dev starts servers on this machine only)'));
  const { cli } = loadEnsureTemporal().ensureTemporal({ needTestServer: false });
  const db = path.resolve(opts.db ?? path.join('.tiller', 'dev.db'));
  fs.mkdirSync(path.dirname(db), { recursive: true });
  log(`starting a Temporal dev server (data in ${path.relative(process.cwd(), db) || db}) …`);
  let started: DevServer;
  try {
    started = await startDevServer({
      cli,
      port: portOf(target) ?? 7233,
      uiPort: opts.uiPort,
      dbFilename: db,
      namespace: settings.namespace,
    });
  } catch (err) {
    throw new CliError(`could not start the Temporal dev server: ${(err as Error).message}`, EXIT.unavailable);
  }
  log(`Temporal server: ${started.address} · namespace ${started.namespace}`);
  log(`Temporal UI:     ${started.uiUrl ?? '(none)'}`);
  return {
    settings: { ...settings, address: started.address, connectionOptions: { address: started.address } },
    started,
  };
}

function ensureNotes(): string {
  const root = workspaceRoot();
  const notes = path.join(root, 'notes.txt');
  fs.mkdirSync(root, { recursive: true });
  if (!fs.existsSync(notes)) {
    fs.writeFileSync(notes, NOTES);
    log(`wrote ${notes}`);
  }
  return notes;
}

export async function devCommand(configured: TemporalSettings, opts: DevOptions): Promise<number> {
  const { settings, started } = await server(configured, opts);
  const stopServer = async () => {
    if (started) {
      await started.stop();
      log('Temporal dev server stopped');
    }
  };
  let worker;
  try {
    worker = await startCliWorker(settings, log);
  } catch (err) {
    await stopServer();
    throw err;
  }
  const interrupted = new AbortController();
  const signalled = untilSignal(() => interrupted.abort());
  let code: number = EXIT.ok;
  try {
    // The demo agent's file: written again when missing (the demo, or a guide, deleted it).
    ensureNotes();
    if (opts.demo) {
      log(`demo: ${DEMO_AGENT} ← "${DEMO_INPUT}"`);
      // A client on the worker's own connection: the demo turn starts eagerly (its first workflow
      // task comes back with the start, no trip through the task queue).
      const dataConverter = dataConverterFromEnv();
      const client = new Client({
        connection: worker.connection,
        namespace: settings.namespace,
        ...(dataConverter && { dataConverter }),
      });
      code = await runCommand(settings, DEMO_AGENT, DEMO_INPUT, {
        as: opts.as,
        keepFollowing: true,
        signal: interrupted.signal,
        tiller: new TillerClient(client, settings.taskQueue),
      });
    } else {
      const run = tillerCommand(['run', DEMO_AGENT, DEMO_INPUT], settings);
      log(`ready. In another terminal: ${run}  (Ctrl-C stops)`);
      await Promise.race([signalled, worker.done]);
    }
  } finally {
    await worker.stop();
    log('worker stopped');
    await stopServer();
  }
  return interrupted.signal.aborted ? EXIT.interrupted : code;
}
