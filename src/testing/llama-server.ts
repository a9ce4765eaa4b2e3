/**
 * Starts llama.cpp's OpenAI-compatible `llama-server` on a free loopback port with a GGUF model and
 * waits until `/health` answers ok. Used by the real-model test suite (`npm run e2e:real-model`) and to
 * record real wire traffic; `scripts/ensure-llama.js` installs the binary and the model.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { freePort } from './free-port';
import { stopChild } from './stop-child';

export interface LlamaServer {
  /** The OpenAI-compatible base URL, `http://127.0.0.1:<port>/v1`. */
  url: string;
  /** The model's name as the server reports it in `/v1/models`. */
  model: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

export interface LlamaServerOptions {
  /** Path to the `llama-server` binary. */
  server: string;
  /** Path to the GGUF model. */
  model: string;
  /** The model's name in requests and responses (default: the file's name without `.gguf`). */
  alias?: string;
  /** A Jinja chat template to use instead of the model's own (`--chat-template-file`). */
  chatTemplateFile?: string;
  /**
   * `false`: start without Jinja templates (a misconfigured server: it refuses requests with tools,
   * HTTP 500 "tools param requires --jinja flag"); `--no-jinja` where the build has it on by default.
   */
  jinja?: boolean;
  port?: number;
  /** Context size in tokens, shared by the slots (default 8192). */
  ctxSize?: number;
  /** Requests decoded at once, each with `ctxSize / parallel` tokens (default 2). */
  parallel?: number;
  /**
   * Threads to decode with (default 1). On a busy 2-core machine two threads spin against the worker and
   * the Temporal server: a tool call measured 54 s with 2 and 3 s with 1 (SmolLM2-135M).
   */
  threads?: number;
  seed?: number;
  /** Give up when `/health` has not answered ok by then (default 60 s). */
  startTimeoutMs?: number;
  extraArgs?: string[];
  /** Forward the server's output (default: keep only the last lines for error messages). */
  inheritOutput?: boolean;
}

const HOST = '127.0.0.1';

/** The arguments `startLlamaServer` gives `llama-server` (exported for the fixtures' README). */
export function llamaServerArgs(opts: LlamaServerOptions, port: number): string[] {
  return [
    '--model',
    opts.model,
    '--host',
    HOST,
    '--port',
    String(port),
    '--alias',
    opts.alias ?? path.basename(opts.model).replace(/\.gguf$/, ''),
    // Tool calls and structured output through the chat template (Jinja).
    ...(opts.jinja === false ? noJinja(opts.server) : ['--jinja']),
    ...(opts.chatTemplateFile && opts.jinja !== false ? ['--chat-template-file', opts.chatTemplateFile] : []),
    '--ctx-size',
    String(opts.ctxSize ?? 8192),
    '--parallel',
    String(opts.parallel ?? 2),
    '--threads',
    String(opts.threads ?? 1),
    '--seed',
    String(opts.seed ?? 42),
    '--no-webui',
    ...(opts.extraArgs ?? []),
  ];
}

/** `--no-jinja` when this build knows it (newer builds turn Jinja on by default), else nothing. */
function noJinja(server: string): string[] {
  const help = spawnSync(server, ['--help'], { encoding: 'utf8', timeout: 30_000 });
  return `${help.stdout ?? ''}${help.stderr ?? ''}`.includes('--no-jinja') ? ['--no-jinja'] : [];
}

async function healthy(base: string): Promise<boolean> {
  try {
    const res = await fetch(`${base}/health`, { signal: AbortSignal.timeout(1_000) });
    if (!res.ok) return false;
    const body = (await res.json()) as { status?: string };
    return body.status === 'ok';
  } catch {
    return false;
  }
}

async function modelName(base: string): Promise<string> {
  const res = await fetch(`${base}/v1/models`, { signal: AbortSignal.timeout(5_000) });
  const body = (await res.json()) as { data?: { id?: string }[] };
  const id = body.data?.[0]?.id;
  if (!id) throw new Error(`llama-server at ${base} lists no model: ${JSON.stringify(body)}`);
  return id;
}

export async function startLlamaServer(opts: LlamaServerOptions): Promise<LlamaServer> {
  const port = opts.port ?? (await freePort(HOST));
  const child = spawn(opts.server, llamaServerArgs(opts, port), {
    stdio: opts.inheritOutput ? 'inherit' : ['ignore', 'pipe', 'pipe'],
  });
  let tail = '';
  const keep = (chunk: Buffer) => {
    tail = (tail + chunk.toString()).slice(-3_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  let exited: number | null = null;
  let spawnError: Error | undefined;
  child.on('error', (err) => {
    spawnError = err;
  });
  child.on('exit', (code) => {
    exited = code ?? -1;
  });

  const base = `http://${HOST}:${port}`;
  const deadline = Date.now() + (opts.startTimeoutMs ?? 60_000);
  for (;;) {
    if (spawnError) throw new Error(`could not start ${opts.server}: ${spawnError.message}`);
    if (exited !== null) throw new Error(`llama-server exited with ${exited} while starting:\n${tail}`);
    if (await healthy(base)) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`llama-server did not answer ok at ${base}/health in time:\n${tail}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }

  const stop = () => stopChild(child);
  try {
    return { url: `${base}/v1`, model: await modelName(base), process: child, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
