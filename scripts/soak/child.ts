/**
 * A restartable child process with its output in a log file: start it and wait for its ready line,
 * kill it and wait for its exit, start it again with the same command and environment.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';

export interface ChildSpec {
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
  log: string;
  /** Printed once the process is ready (on stdout or stderr). */
  ready: RegExp;
  readyTimeoutMs?: number;
}

export class RestartableChild {
  private child?: ChildProcess;
  private exited?: Promise<void>;

  constructor(readonly spec: ChildSpec) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Spawns the process and resolves once it printed its ready line; rejects if it exits first. */
  async start(): Promise<void> {
    if (this.child) throw new Error(`${this.spec.command} is already running (pid ${this.child.pid})`);
    const { command, args, env, cwd, log, ready } = this.spec;
    const out = fs.createWriteStream(log, { flags: 'a' });
    const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    // 'close', not 'exit': the output has been written by then.
    this.exited = new Promise((resolve) =>
      child.once('close', () => {
        if (this.child === child) this.child = undefined;
        out.end();
        resolve();
      }),
    );
    let seen = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(new Error(`${command} ${args.join(' ')}: not ready within ${this.spec.readyTimeoutMs ?? 120_000} ms`)),
        this.spec.readyTimeoutMs ?? 120_000,
      );
      const onData = (chunk: Buffer): void => {
        out.write(chunk);
        if (seen.length < 64_000) seen += chunk.toString();
        if (ready.test(seen)) {
          clearTimeout(timer);
          resolve();
        }
      };
      child.stdout!.on('data', onData);
      child.stderr!.on('data', onData);
      child.once('close', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`${command} exited (${code ?? signal}) before it was ready; see ${log}`));
      });
    });
  }

  /** Sends `signal` and resolves once the process has exited (at once if it is not running). */
  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const child = this.child;
    if (!child) return;
    const exited = this.exited;
    child.kill(signal);
    await exited;
  }
}
