/** What the numbers were measured on: machine, load, versions, the exact command. */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface MachineInfo {
  date: string;
  cpus: number;
  cpuModel: string;
  memoryGiB: number;
  os: string;
  node: string;
  temporalCli: string;
  sdk: string;
  openai: string;
  commit: string;
  command: string;
  uptimeAtStart: string;
  /** A fixed CPU job timed at start, to compare machines and runs: SHA-256 of 64 MiB, a JS loop of 1e8. */
  calibration: { sha256of64MiBMs: number; jsLoop1e8Ms: number };
}

function sh(cmd: string, args: string[]): string {
  try {
    return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return 'unknown';
  }
}

function pkgVersion(name: string): string {
  try {
    const file = path.resolve(__dirname, '../../node_modules', name, 'package.json');
    return (JSON.parse(fs.readFileSync(file, 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

function cpuModel(): string {
  try {
    const line = fs
      .readFileSync('/proc/cpuinfo', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('model name'));
    if (line) return line.split(':').slice(1).join(':').trim();
  } catch {
    // not Linux
  }
  return os.cpus()[0]?.model ?? 'unknown';
}

function calibrate(): MachineInfo['calibration'] {
  const data = Buffer.alloc(64 * 2 ** 20, 1);
  let t = performance.now();
  createHash('sha256').update(data).digest();
  const sha = performance.now() - t;
  t = performance.now();
  let x = 0;
  for (let i = 0; i < 1e8; i++) x += i % 7;
  const loop = performance.now() - t;
  if (x < 0) throw new Error('unreachable');
  return { sha256of64MiBMs: Math.round(sha), jsLoop1e8Ms: Math.round(loop) };
}

export function uptime(): string {
  return sh('uptime', []);
}

/** The 1-, 5- and 15-minute load averages, rounded. */
export function load(): [number, number, number] {
  const [a = 0, b = 0, c = 0] = os.loadavg();
  return [Math.round(a * 100) / 100, Math.round(b * 100) / 100, Math.round(c * 100) / 100];
}

export function machineInfo(cli: string, argv: string[]): MachineInfo {
  const dirty = sh('git', ['status', '--porcelain']) !== '' ? ' (with uncommitted changes)' : '';
  return {
    date: new Date().toISOString(),
    cpus: Number(sh('nproc', [])) || os.cpus().length,
    cpuModel: cpuModel(),
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    temporalCli: sh(cli, ['--version']),
    sdk: `@temporalio/worker ${pkgVersion('@temporalio/worker')}`,
    openai: pkgVersion('openai'),
    commit: `${sh('git', ['rev-parse', '--short', 'HEAD'])}${dirty}`,
    command: ['npm run bench', ...(argv.length ? ['--', ...argv] : [])].join(' '),
    uptimeAtStart: uptime(),
    calibration: calibrate(),
  };
}

/** Aggregate CPU counters from /proc/stat (Linux), in clock ticks. */
export interface CpuTicks {
  busy: number;
  idle: number;
  steal: number;
  total: number;
}

export function cpuTicks(): CpuTicks | undefined {
  try {
    const line = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
    const [, ...fields] = line.trim().split(/\s+/);
    const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = fields.map(Number);
    const busy = user + nice + system + irq + softirq;
    return { busy, idle: idle + iowait, steal, total: busy + idle + iowait + steal };
  } catch {
    return undefined;
  }
}

/** Share of the machine's CPU time between two samples: busy (any process), idle, stolen by the hypervisor. */
export function cpuShare(a: CpuTicks | undefined, b: CpuTicks | undefined) {
  if (!a || !b || b.total === a.total) return undefined;
  const d = b.total - a.total;
  const pct = (x: number) => Math.round((x / d) * 1000) / 10;
  return { busyPct: pct(b.busy - a.busy), idlePct: pct(b.idle - a.idle), stealPct: pct(b.steal - a.steal) };
}

/** CPU time (user + system) of a process from /proc/<pid>/stat, in ms; undefined where unavailable. */
export function processCpuMs(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15 of stat)
    return (ticks * 1000) / 100; // USER_HZ is 100 on Linux
  } catch {
    return undefined;
  }
}

/** CPU time of this process (all its threads: JS, workflow threads, the SDK's Rust core), in ms. */
export function selfCpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/** Measures the CPU that the dev server and this process spend while `fn` runs. */
export async function cpuOf<T>(serverPid: number | undefined, fn: () => Promise<T>) {
  const s0 = processCpuMs(serverPid);
  const b0 = selfCpuMs();
  const value = await fn();
  const s1 = processCpuMs(serverPid);
  return { value, serverMs: s0 !== undefined && s1 !== undefined ? s1 - s0 : Number.NaN, benchMs: selfCpuMs() - b0 };
}
