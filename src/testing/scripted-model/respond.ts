/**
 * Whole HTTP responses: JSON bodies, OpenAI-style errors and a scripted step's error or garbage.
 *
 * @module
 */
import type * as http from 'node:http';

import type { ScriptStep } from './script';

type ErrorStep = Extract<ScriptStep, { error: unknown }>;
type GarbageStep = Extract<ScriptStep, { garbage: string }>;

/** An OpenAI-style error body. */
export function errorBody(message: string, type: string): string {
  return JSON.stringify({ error: { message, type, code: null } });
}

/** Send `body` as JSON, unless the response is already gone. */
export function sendJson(
  res: http.ServerResponse,
  status: number,
  body: string,
  headers: Record<string, string> = {},
): void {
  if (res.destroyed || res.writableEnded) return;
  res.writeHead(status, {
    ...headers,
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(body)),
  });
  res.end(body);
}

/** Answer with a scripted error: its status, headers and an OpenAI-style body. */
export function sendErrorStep(res: http.ServerResponse, { error: e }: ErrorStep): void {
  sendJson(
    res,
    e.status,
    errorBody(e.message ?? `scripted error ${e.status}`, e.type ?? 'scripted_error'),
    e.headers ?? {},
  );
}

/** Answer with a scripted raw body, labelled as the kind of response the client asked for. */
export function sendGarbage(res: http.ServerResponse, step: GarbageStep, stream: boolean): void {
  if (res.destroyed) return;
  res.writeHead(step.status ?? 200, { 'content-type': stream ? 'text/event-stream' : 'application/json' });
  res.end(step.garbage);
}
