/**
 * The idempotency ledger: a small HTTP server in the soak process that stands for an external system
 * the soak's side-effect tool writes to. It keeps its own record of every attempt and every effect, so
 * the soak checks duplicates against it rather than against what the turns say about themselves.
 *
 * The tool asks `GET /effects/:key` and, when absent, `POST /effects` — check-then-apply, as a real
 * tool against a real system would. The ledger appends every effect it is sent (it does not
 * deduplicate): two effects for one key or one effect id is a duplicate the soak reports.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LedgerAttempt {
  key: string;
  effect: string;
  attempt: number;
  pid: number;
  at: number;
}

export interface LedgerEffect {
  key: string;
  /** The effect id the model put in the tool's arguments (`<turn>#<n>`): unique per designed effect. */
  effect: string;
  at: number;
}

export interface Ledger {
  url: string;
  attempts: readonly LedgerAttempt[];
  effects: readonly LedgerEffect[];
  close(): Promise<void>;
}

async function readBody(req: http.IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
}

function send(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

export async function startLedger(): Promise<Ledger> {
  const attempts: LedgerAttempt[] = [];
  const effects: LedgerEffect[] = [];
  const server = http.createServer((req, res) => {
    const route = async (): Promise<void> => {
      const url = new URL(req.url ?? '/', 'http://ledger');
      if (req.method === 'POST' && url.pathname === '/attempts') {
        attempts.push({ ...((await readBody(req)) as Omit<LedgerAttempt, 'at'>), at: Date.now() });
        return send(res, 200, { ok: true });
      }
      if (req.method === 'GET' && url.pathname.startsWith('/effects/')) {
        const key = decodeURIComponent(url.pathname.slice('/effects/'.length));
        return send(res, 200, { applied: effects.some((e) => e.key === key) });
      }
      if (req.method === 'POST' && url.pathname === '/effects') {
        const { key, effect } = (await readBody(req)) as { key: string; effect: string };
        effects.push({ key, effect, at: Date.now() });
        return send(res, 201, { applied: true });
      }
      send(res, 404, { error: 'not found' });
    };
    route().catch((err: unknown) => send(res, 500, { error: String(err) }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    attempts,
    effects,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
