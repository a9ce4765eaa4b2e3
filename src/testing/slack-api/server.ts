/**
 * A stand-in for Slack's Web API on loopback, written from Slack's public documentation: the methods
 * Tiller calls (`chat.postMessage`, `chat.update`, `views.open`), the `response_url` of interactions,
 * bot-token auth, Block Kit checks, trigger ids that expire after 3 seconds and are used once, and
 * scripted faults (`429` with `Retry-After`, `5xx`, `ok: false`). No network beyond 127.0.0.1.
 *
 * @module
 */
import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

import { IDLE_CONNECTION_MS } from '../idle-connection';

import type { Fault, OpenedView, RecordedCall, SlackStandIn, SlackStandInOptions, StoredMessage } from './api';
import { checkBlocks, checkModal } from './block-kit';
import { interactionClient, type Issued } from './interactions';

type Args = Record<string, unknown>;
type Answer = { status: number; body: Args; headers?: Record<string, string> };

const ok = (body: Args = {}): Answer => ({ status: 200, body: { ok: true, ...body } });
const refuse = (error: string, detail?: string): Answer => ({
  status: 200,
  body: { ok: false, error, ...(detail && { response_metadata: { messages: [`[ERROR] ${detail}`] } }) },
});

/** Slack's response_url rules: up to 5 uses within 30 minutes. */
const RESPONSE_URL_USES = 5;
const RESPONSE_URL_TTL_MS = 30 * 60 * 1000;

export async function startSlackApi(opts: SlackStandInOptions): Promise<SlackStandIn> {
  const host = opts.host ?? '127.0.0.1';
  const changes = new EventEmitter();
  changes.setMaxListeners(0);
  const calls: RecordedCall[] = [];
  const messages: StoredMessage[] = [];
  const views: OpenedView[] = [];
  const responses: SlackStandIn['responses'] = [];
  const faults = new Map<string, Fault[]>();
  const outages = new Map<string, Fault>();
  const issued: Issued = { triggers: new Map(), responseUrls: new Map() };
  const channels = new Map<string, string>();
  let seq = 0;
  let origin = '';
  const changed = () => changes.emit('change');

  const channelId = (raw: unknown): string | undefined => {
    if (typeof raw !== 'string') return undefined;
    if (/^[CGD][A-Z0-9]{2,30}$/.test(raw)) return raw;
    const name = raw.replace(/^#/, '');
    if (!/^[a-z0-9][\w.-]{0,79}$/.test(name)) return undefined;
    if (!channels.has(name)) channels.set(name, `C${String(channels.size + 1).padStart(8, '0')}`);
    return channels.get(name);
  };

  const methods: Record<string, (args: Args) => Answer> = {
    'chat.postMessage': (args) => {
      const channel = channelId(args.channel);
      if (!channel) return refuse('channel_not_found');
      if (typeof args.text !== 'string' && args.blocks === undefined) return refuse('no_text');
      if (typeof args.text === 'string' && args.text.length > 40_000) return refuse('msg_too_long');
      const problem = args.blocks === undefined ? undefined : checkBlocks(args.blocks, 'message');
      if (problem) return refuse('invalid_blocks', problem);
      const ts = `${Math.floor(Date.now() / 1000)}.${String(++seq).padStart(6, '0')}`;
      const stored: StoredMessage = {
        channel,
        ts,
        text: String(args.text ?? ''),
        blocks: (args.blocks as Args[] | undefined) ?? [],
        postedAt: Date.now(),
        updates: [],
      };
      messages.push(stored);
      return ok({ channel, ts, message: { type: 'message', text: stored.text, blocks: stored.blocks, ts } });
    },
    'chat.update': (args) => {
      const channel = channelId(args.channel);
      if (!channel) return refuse('channel_not_found');
      const stored = messages.find((m) => m.channel === channel && m.ts === args.ts);
      if (!stored) return refuse('message_not_found');
      const problem = args.blocks === undefined ? undefined : checkBlocks(args.blocks, 'message');
      if (problem) return refuse('invalid_blocks', problem);
      stored.text = String(args.text ?? stored.text);
      stored.blocks = (args.blocks as Args[] | undefined) ?? stored.blocks;
      stored.updates.push({ text: stored.text, blocks: stored.blocks, at: Date.now() });
      return ok({ channel, ts: stored.ts, text: stored.text });
    },
    'views.open': (args) => {
      const triggerId = args.trigger_id;
      if (typeof triggerId !== 'string') return refuse('invalid_arguments', 'trigger_id is required');
      const trigger = issued.triggers.get(triggerId);
      if (!trigger) return refuse('invalid_trigger_id');
      if (trigger.used || Date.now() - trigger.at > (opts.triggerTtlMs ?? 3_000)) return refuse('expired_trigger_id');
      const problem = checkModal(args.view);
      if (problem) return refuse('invalid_arguments', problem);
      trigger.used = true;
      const id = `V${randomBytes(5).toString('hex').toUpperCase()}`;
      const view = { ...(args.view as Args), id, state: { values: {} }, hash: `${Date.now()}.${id}` };
      views.push({ id, triggerId, view, at: Date.now() });
      return ok({ view });
    },
  };

  const callMethod = (method: string, args: Args, authorization: string | undefined): Answer => {
    const fault = outages.get(method) ?? faults.get(method)?.shift();
    if (fault) {
      if ('error' in fault) return refuse(fault.error);
      const headers: Record<string, string> =
        fault.retryAfter !== undefined ? { 'retry-after': String(fault.retryAfter) } : {};
      return {
        status: fault.status,
        body: { ok: false, error: fault.status === 429 ? 'ratelimited' : 'fatal_error' },
        headers,
      };
    }
    const token =
      /^Bearer (\S+)$/.exec(authorization ?? '')?.[1] ?? (typeof args.token === 'string' ? args.token : undefined);
    if (token === undefined) return refuse('not_authed');
    if (token !== opts.token) return refuse('invalid_auth');
    const handler = methods[method];
    return handler ? handler(args) : refuse('unknown_method');
  };

  const server = http.createServer({ keepAliveTimeout: IDLE_CONNECTION_MS }, (req, res) => {
    req.on('error', () => undefined);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      const send = (answer: Answer) => {
        res.writeHead(answer.status, { 'content-type': 'application/json; charset=utf-8', ...answer.headers });
        res.end(JSON.stringify(answer.body));
      };
      const api = /^\/api\/([\w.]+)$/.exec(path);
      if (req.method === 'POST' && api) {
        const args = parseArgs(raw, String(req.headers['content-type'] ?? ''));
        const answer = callMethod(api[1]!, args, req.headers.authorization);
        const error = answer.body.ok === false ? String(answer.body.error) : undefined;
        calls.push({ method: api[1]!, args, status: answer.status, ...(error && { error }), at: Date.now() });
        send(answer);
        changed();
        return;
      }
      const response = /^\/response\/(\w+)$/.exec(path);
      if (req.method === 'POST' && response) {
        const url = issued.responseUrls.get(response[1]!);
        if (!url || url.uses >= RESPONSE_URL_USES || Date.now() - url.at > RESPONSE_URL_TTL_MS) {
          send({ status: 404, body: { ok: false, error: 'used_url' } });
          return;
        }
        url.uses++;
        let body: Args;
        try {
          body = JSON.parse(raw) as Args;
        } catch {
          send({ status: 400, body: { ok: false, error: 'invalid_payload' } });
          return;
        }
        responses.push({ url: `${origin}${path}`, body, at: Date.now() });
        send(ok());
        changed();
        return;
      }
      send({ status: 404, body: { ok: false, error: 'unknown_method' } });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve());
  });
  origin = `http://${host}:${(server.address() as AddressInfo).port}`;
  const client = interactionClient({ signingSecret: opts.signingSecret, origin: () => origin, issued, changed });

  return {
    url: `${origin}/api/`,
    calls,
    messages,
    views,
    responses,
    fail: (method, ...more) => faults.set(method, [...(faults.get(method) ?? []), ...more]),
    outage: (method, fault) => outages.set(method, fault),
    recover: (method) => outages.delete(method),
    waitFor: (check, what = 'the condition', timeoutMs = 20_000) =>
      new Promise((resolve, reject) => {
        const test = () => {
          const value = check();
          if (!value) return;
          cleanup();
          resolve(value);
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`Slack stand-in: ${what} did not happen in ${timeoutMs} ms; calls: ${describe(calls)}`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          changes.off('change', test);
        };
        changes.on('change', test);
        test();
      }),
    ...client,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The form fields that carry JSON (the WebClient JSON-encodes objects into form fields). */
const JSON_FIELDS = new Set(['blocks', 'view', 'attachments', 'metadata']);

/** Web API arguments: form fields (the JSON-valued ones parsed) or a JSON body. */
function parseArgs(raw: string, contentType: string): Args {
  if (contentType.startsWith('application/json')) {
    try {
      const json = JSON.parse(raw) as unknown;
      return typeof json === 'object' && json !== null ? (json as Args) : {};
    } catch {
      return {};
    }
  }
  const args: Args = {};
  for (const [key, value] of new URLSearchParams(raw)) {
    if (JSON_FIELDS.has(key)) {
      try {
        args[key] = JSON.parse(value);
        continue;
      } catch {
        // not JSON after all: keep the string
      }
    }
    args[key] = value;
  }
  return args;
}

const describe = (calls: RecordedCall[]) =>
  calls.map((c) => `${c.method} ${c.status}${c.error ? ` ${c.error}` : ''}`).join(', ') || '(none)';
