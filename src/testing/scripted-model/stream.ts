/**
 * Streaming a normal answer as server-sent events: the role chunk, the content in pieces (with the
 * step's typing delay and broken connection), then tool calls, finish, usage and `[DONE]`.
 *
 * @module
 */
import type * as http from 'node:http';

import type { NormalStep } from './script';
import { sleep, tick } from './timers';
import { ChunkBuilder, type Answer } from './wire';

export interface StreamSettings {
  /** Characters per content / tool-argument delta. */
  chunkSize: number;
  /** Repeat the usage on every chunk. */
  usageInEveryChunk: boolean;
  /** Send the final usage-only chunk (the request's `stream_options.include_usage`). */
  includeUsage: boolean;
  /** Called with each content piece once it was written. */
  onContentChunk(text: string): void;
}

/** Write one SSE `data:` event; false once the client is gone or the response was aborted. */
type EventWriter = (data: unknown) => Promise<boolean>;

/** Stream `answer` to `res`; stops early if `signal` aborts or the client goes away. */
export async function streamAnswer(
  res: http.ServerResponse,
  answer: Answer,
  step: NormalStep,
  settings: StreamSettings,
  signal: AbortSignal,
): Promise<void> {
  openEventStream(res);
  const write = eventWriter(res, signal);
  const chunks = new ChunkBuilder(answer, settings.chunkSize, settings.usageInEveryChunk);
  if (!(await write(chunks.chunk({ role: 'assistant', content: '' }, null)))) return;
  if (!(await streamContent(res, write, chunks, step, settings, signal))) return;
  for (const ev of chunks.closingEvents(settings.includeUsage)) {
    if (!(await write(ev))) return;
  }
  res.end();
}

function openEventStream(res: http.ServerResponse): void {
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  res.flushHeaders();
}

function eventWriter(res: http.ServerResponse, signal: AbortSignal): EventWriter {
  return async (data) => {
    if (signal.aborted || res.destroyed) return false;
    res.write(`data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
    await tick();
    return !signal.aborted && !res.destroyed;
  };
}

/** The content pieces, each after the step's `chunkDelayMs`; false if the stream ended early. */
async function streamContent(
  res: http.ServerResponse,
  write: EventWriter,
  chunks: ChunkBuilder,
  step: NormalStep,
  settings: StreamSettings,
  signal: AbortSignal,
): Promise<boolean> {
  for (const [i, piece] of chunks.contentPieces().entries()) {
    if (step.chunkDelayMs && !(await sleep(step.chunkDelayMs, signal))) return false;
    if (step.breakAfterChunks !== undefined && i >= step.breakAfterChunks) {
      res.destroy();
      return false;
    }
    if (!(await write(chunks.chunk({ content: piece }, null)))) return false;
    settings.onContentChunk(piece);
  }
  return true;
}
