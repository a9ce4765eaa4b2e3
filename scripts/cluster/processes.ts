/**
 * The cluster's long-running processes: each started detached (it outlives `npm run cluster -- up`),
 * its output appended to its own log file, its pid recorded, and "ready" defined by something
 * observable — a port that accepts connections, a line in its log, an HTTP endpoint that answers.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import type { ProcessRole } from './types';

export type Readiness =
  { type: 'port'; port: number } | { type: 'line'; pattern: string; flags?: string } | { type: 'http'; url: string };

/** Everything needed to start a process again after it was killed (stored in the state file). */
export interface ProcessSpec {
  name: string;
  role: ProcessRole;
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  log: string;
  ready: Readiness;
  pid?: number;
}

export function isAlive(pid: number | undefined): boolean {
  if (!pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const tick = (ms = 100) => new Promise((resolve) => setTimeout(resolve, ms));

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

async function httpOk(url: string): Promise<boolean> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
    return res.ok;
  } catch {
    return false;
  }
}

function logTail(file: string, lines = 30): string {
  try {
    return fs.readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

/** Bytes in the log before this start, so an old "ready" line does not count. */
function logSize(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;
  }
}

function logSince(file: string, offset: number): string {
  try {
    const fd = fs.openSync(file, 'r');
    try {
      const size = fs.fstatSync(fd).size;
      const buf = Buffer.alloc(Math.max(0, size - offset));
      fs.readSync(fd, buf, 0, buf.length, offset);
      return buf.toString('utf8');
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return '';
  }
}

/** Starts `spec` detached and resolves with its pid once it is ready (or rejects with its log's tail). */
export async function startProcess(spec: ProcessSpec, timeoutMs = 120_000): Promise<number> {
  const offset = logSize(spec.log);
  // Logs may show turn ids, tool arguments and errors: owner only.
  const out = fs.openSync(spec.log, 'a', 0o600);
  fs.fchmodSync(out, 0o600);
  fs.writeSync(out, `\n=== ${new Date().toISOString()} start ${spec.name}: ${spec.command} ${spec.args.join(' ')}\n`);
  const child = spawn(spec.command, spec.args, {
    cwd: spec.cwd,
    env: { ...process.env, ...spec.env },
    detached: true,
    stdio: ['ignore', out, out],
  });
  fs.closeSync(out);
  child.unref();
  let exited: number | string | null | undefined;
  child.once('exit', (code, signal) => (exited = code ?? signal));
  child.once('error', (err) => (exited = err.message));
  const pid = child.pid;
  if (!pid) throw new Error(`${spec.name}: could not start ${spec.command}`);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (exited !== undefined)
      throw new Error(`${spec.name} exited (${exited}) before it was ready; ${spec.log}:\n${logTail(spec.log)}`);
    const ready =
      spec.ready.type === 'port'
        ? await portOpen(spec.ready.port)
        : spec.ready.type === 'http'
          ? await httpOk(spec.ready.url)
          : new RegExp(spec.ready.pattern, spec.ready.flags).test(logSince(spec.log, offset));
    if (ready) return pid;
    if (Date.now() > deadline) {
      // Not ready is not started: leave nothing running that no state file knows of.
      await stopProcess(pid, 'SIGKILL');
      throw new Error(`${spec.name} was not ready after ${timeoutMs / 1000} s; ${spec.log}:\n${logTail(spec.log)}`);
    }
    await tick();
  }
}

/** Sends `signal` to the process group and waits until the process is gone. */
export async function stopProcess(pid: number | undefined, signal: NodeJS.Signals, timeoutMs = 30_000): Promise<void> {
  if (!isAlive(pid)) return;
  try {
    // Detached children lead their own process group: this reaches what they started too.
    process.kill(-pid!, signal);
  } catch {
    try {
      process.kill(pid!, signal);
    } catch {
      return;
    }
  }
  const deadline = Date.now() + timeoutMs;
  while (isAlive(pid)) {
    if (Date.now() > deadline) {
      if (signal === 'SIGKILL') throw new Error(`process ${pid} survived SIGKILL for ${timeoutMs / 1000} s`);
      return stopProcess(pid, 'SIGKILL', timeoutMs);
    }
    await tick(50);
  }
}
