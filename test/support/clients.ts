/**
 * The clients as a user runs them, for e2e tests: `tiller` as a real CLI process against the file's
 * harness (its dev server and task queue, from source), and a caller of the HTTP gateway with a token.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import type { Harness } from './harness';
import { ROOT } from './processes';

/** Runs `tiller <args>` (with `env` added) to its end (killed after 90 s): its exit code and what it printed. */
export function runTiller(
  h: Harness,
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'bin/tiller.js'), ...args], {
      cwd: ROOT,
      env: {
        ...process.env,
        TEMPORAL_ADDRESS: h.address,
        TILLER_TASK_QUEUE: h.taskQueue,
        TILLER_FROM_SOURCE: '1',
        NO_COLOR: '1',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** A call to the gateway at `base` as the holder of `token`: the status and the JSON body, if any. */
export async function gatewayCall(base: string, token: string, method: string, url: string, body?: unknown) {
  const res = await fetch(`${base}${url}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json().catch(() => undefined)) as any };
}
