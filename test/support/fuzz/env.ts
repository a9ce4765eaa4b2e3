/**
 * What every fuzz case runs against: the harness (dev server, worker's task queue, scripted model),
 * a raw-payload client, a history reader, the model router, and the workspace's sentinel and decoy
 * files.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import type { Harness } from '../harness';
import { DECOY } from './decision-cases';
import { SENTINEL } from './model-cases';
import { rawClient } from './raw-client';
import { FuzzWorker } from './fuzz-worker';
import { ModelRouter } from './router';

export interface FuzzEnv {
  h: Harness;
  raw: Client;
  /**
   * A client without the default gRPC retries, for reading histories: a history page over gRPC's
   * 4 MB is refused as RESOURCE_EXHAUSTED, which the default client retries for half a minute.
   */
  reader: Client;
  router: ModelRouter;
  worker: FuzzWorker;
  sentinel: string;
  decoy: string;
  close(): Promise<void>;
}

export async function fuzzEnv(h: Harness): Promise<FuzzEnv> {
  const router = new ModelRouter();
  h.model.setScript(router.script);
  const worker = new FuzzWorker(h, router);
  await worker.start();
  const readerConnection = await Connection.connect({ address: h.address, interceptors: [] });
  return {
    h,
    raw: rawClient(h.client.connection),
    reader: new Client({ connection: readerConnection }),
    router,
    worker,
    sentinel: path.join(h.workspace, SENTINEL),
    decoy: path.join(h.workspace, DECOY),
    async close() {
      await worker.stop();
      await readerConnection.close();
    },
  };
}

/** Puts the sentinel (and the decoy) back before a case: a case that deleted one was already reported. */
export function resetFiles(env: FuzzEnv): void {
  fs.writeFileSync(env.sentinel, 'the gated tool must not delete me without a human\n');
  fs.writeFileSync(env.decoy, 'an approver may let this one go\n');
}

/** After a case: the turn closed (terminated if it still runs), the model's recorded requests dropped. */
export async function cleanUp(env: FuzzEnv, turnId: string): Promise<void> {
  env.router.forget(turnId);
  env.h.model.requests.length = 0;
  env.h.model.contentChunks.length = 0;
  try {
    await env.h.client.workflow.getHandle(turnId).terminate('fuzz case over');
  } catch {
    // already closed
  }
}
