/**
 * A model server that answers every request with a given response body, verbatim: the conformance
 * suites serve the hand-written bodies (test/fixtures/model-streams/hand-written/) and the real
 * llama-server recordings (test/fixtures/model-streams/llama-server/) into the model activity.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { IDLE_CONNECTION_MS } from '../../src/testing/idle-connection';

export const STREAMS = path.resolve(__dirname, '../fixtures/model-streams');

/** A body from `<dir>/<name>` under test/fixtures/model-streams (hand-written/… or llama-server/…). */
export function recorded(file: string): string {
  return fs.readFileSync(path.join(STREAMS, file), 'utf8');
}

export interface RecordedModel {
  url: string;
  /** The request bodies received, parsed. */
  requests: Record<string, unknown>[];
  /** Answer the next requests with these bodies, in order (the last one repeats). */
  serve(...bodies: string[]): void;
  close(): Promise<void>;
}

export async function startRecordedModel(): Promise<RecordedModel> {
  let bodies: string[] = [];
  let served = 0;
  const requests: Record<string, unknown>[] = [];
  // Idle connections outlive the client's pool, as the scripted model's do (see IDLE_CONNECTION_MS).
  const server = http.createServer({ keepAliveTimeout: IDLE_CONNECTION_MS }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      requests.push(body);
      const text = bodies[Math.min(served++, bodies.length - 1)] ?? '';
      const sse = body.stream === true;
      res.writeHead(200, { 'content-type': sse ? 'text/event-stream' : 'application/json' });
      res.end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    requests,
    serve(...next) {
      bodies = next;
      served = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
