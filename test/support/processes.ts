/** Child processes for e2e tests: start, wait for a line on stdout, kill. */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

export const ROOT = path.resolve(__dirname, '../..');

export interface Child {
  process: ChildProcess;
  output(): string;
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<string>;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

export function startChild(command: string, args: string[], env: NodeJS.ProcessEnv): Child {
  const child = spawn(command, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const listeners = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    out += chunk.toString();
    for (const l of listeners) l();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  let exited = false;
  child.on('exit', () => {
    exited = true;
    for (const l of listeners) l();
  });
  return {
    process: child,
    output: () => out,
    waitFor(pattern, timeoutMs = 60_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const m = out.match(pattern);
          if (m) {
            cleanup();
            resolve(m[0]);
          } else if (exited) {
            cleanup();
            reject(new Error(`process exited before printing ${pattern}:\n${out}`));
          }
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`timed out waiting for ${pattern}:\n${out}`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          listeners.delete(check);
        };
        listeners.add(check);
        check();
      });
    },
    async kill(signal = 'SIGKILL') {
      if (exited) return;
      const gone = new Promise<void>((r) => child.once('exit', () => r()));
      child.kill(signal);
      await gone;
    },
  };
}

/** Runs a TypeScript entry file in a new Node process through tsx. */
export function startTsChild(file: string, env: NodeJS.ProcessEnv): Child {
  return startChild(process.execPath, ['--require', 'tsx/cjs', path.resolve(ROOT, file)], env);
}
