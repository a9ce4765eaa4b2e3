/**
 * The scripted model's HTTP server: routes, listening on loopback, and the handle tests hold.
 *
 * @module
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

import { IDLE_CONNECTION_MS } from '../idle-connection';
import type { ScriptedModel, ScriptedModelOptions } from './api';
import { handleCompletion, type ServerState } from './chat-completions';
import { errorBody, sendJson } from './respond';
import type { ScriptFn, ScriptStep, ScriptUsage } from './script';
import { ScriptCursor } from './script-cursor';
import { handleResponses, initialResponsesState, type ResponsesServerState } from './responses';

const DEFAULT_USAGE: ScriptUsage = { prompt_tokens: 10, completion_tokens: 5 };

const MODELS_BODY = JSON.stringify({
  object: 'list',
  data: [{ id: 'scripted', object: 'model', created: 0, owned_by: 'scripted-model' }],
});

/**
 * Start a scripted model server.
 *
 * @example
 * ```ts
 * const model = await startScriptedModel({ script: [{ content: 'hi' }] });
 * const client = new OpenAI({ baseURL: model.url, apiKey: 'test', maxRetries: 0 });
 * await client.chat.completions.create({ model: 'x', messages: [{ role: 'user', content: 'hello' }] });
 * await model.close();
 * ```
 */
export async function startScriptedModel(opts: ScriptedModelOptions = {}): Promise<ScriptedModel> {
  const host = opts.host ?? '127.0.0.1';
  const state = initialState(opts);
  const server = http.createServer({ noDelay: true, keepAliveTimeout: IDLE_CONNECTION_MS }, router(state));
  server.on('clientError', (_err, socket) => {
    socket.destroy();
  });
  await listen(server, opts.port ?? 0, host);
  return modelHandle(state, server, baseUrl(host, (server.address() as AddressInfo).port));
}

function initialState(opts: ScriptedModelOptions): ServerState & ResponsesServerState {
  return {
    ...initialResponsesState(),
    script: new ScriptCursor(opts.script ?? []),
    chunkSize: Math.max(1, Math.floor(opts.chunkSize ?? 8)),
    defaultUsage: opts.defaultUsage ?? DEFAULT_USAGE,
    usageInEveryChunk: opts.usageInEveryChunk ?? false,
    ...(opts.contextLimit !== undefined && { contextLimit: opts.contextLimit }),
    ...(opts.contextRefusal !== undefined && { contextRefusal: opts.contextRefusal }),
    requests: [],
    contentChunks: [],
    inFlight: new Set<AbortController>(),
    requestCount: 0,
    toolCallCount: 0,
    completionCount: 0,
  };
}

/** `GET /v1/models`, `POST /v1/chat/completions`, `POST /v1/responses`, and 404 for anything else. */
function router(state: ServerState & ResponsesServerState): http.RequestListener {
  return (req, res) => {
    req.on('error', () => undefined);
    res.on('error', () => undefined);
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const method = req.method ?? 'GET';

    if (method === 'GET' && (path === '/v1/models' || path === '/v1/models/')) {
      req.resume();
      sendJson(res, 200, MODELS_BODY);
      return;
    }
    const handler =
      method !== 'POST'
        ? undefined
        : path === '/v1/chat/completions'
          ? handleCompletion
          : path === '/v1/responses'
            ? handleResponses
            : undefined;
    if (handler) {
      readBody(req, (raw) => {
        handler(state, req, res, raw).catch(() => {
          // Only reachable if writing to a dead socket throws; nothing useful to report.
          if (!res.headersSent) sendJson(res, 500, errorBody('scripted model: internal error', 'server_error'));
          else res.destroy();
        });
      });
      return;
    }
    req.resume();
    sendJson(res, 404, errorBody(`scripted model: no route for ${method} ${path}`, 'not_found_error'));
  };
}

/** Collect the request body and pass it, as UTF-8 text, to `onBody`. */
function readBody(req: http.IncomingMessage, onBody: (raw: string) => void): void {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => onBody(Buffer.concat(chunks).toString('utf8')));
}

function listen(server: http.Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const onError = (err: Error): void => reject(err);
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
}

/** The `/v1` base URL a client uses; a wildcard host is reached on loopback. */
function baseUrl(host: string, port: number): string {
  const urlHost = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `http://${urlHost.includes(':') ? `[${urlHost}]` : urlHost}:${port}/v1`;
}

function modelHandle(state: ServerState & ResponsesServerState, server: http.Server, url: string): ScriptedModel {
  let closing: Promise<void> | undefined;
  return {
    url,
    requests: state.requests,
    contentChunks: state.contentChunks,
    push(...steps: ScriptStep[]): void {
      state.script.push(steps);
    },
    setScript(next: ScriptStep[] | ScriptFn): void {
      state.script.replace(next);
    },
    remaining(): number {
      return state.script.remaining();
    },
    forgetResponses(): void {
      state.stored.clear();
    },
    close(): Promise<void> {
      closing ??= new Promise<void>((resolve) => {
        for (const ac of state.inFlight) ac.abort();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
