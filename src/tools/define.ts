/** `defineTool`: a tool is a name, a description, a zod schema for its arguments and an `execute`. */
import { z } from 'zod';
import type { DurationLike } from '../core/spec';

/** What a tool's `execute` gets besides its arguments: who calls it, its idempotency key, cancellation. */
export interface ToolContext {
  /** `workflowId:toolCallId` — the same on every retry of this call; use it to make side effects happen once. */
  idempotencyKey: string;
  toolCallId: string;
  turnId: string;
  workflowId: string;
  agent: string;
  /** Aborted when the activity is cancelled (turn cancelled, timed out, worker shutting down). */
  signal: AbortSignal;
  /** Records progress; long tools should call it so a dead worker is noticed by heartbeat timeout. */
  heartbeat(details?: unknown): void;
}

/** A tool an agent may call ({@link defineTool}): its name, what the model reads, its arguments' schema and its code. */
export interface ToolDefinition<S extends z.ZodType = z.ZodType> {
  /** What the model calls it: 1–64 letters, digits, `_` or `-`. */
  name: string;
  /** What the model reads about when to call it. */
  description: string;
  /** The arguments' zod schema: sent to the model as JSON Schema, checked before `execute` runs. */
  input: S;
  /** Runs the call (as an activity) with the validated arguments; its result goes back to the model as text. */
  execute(args: z.output<S>, ctx: ToolContext): unknown;
  /** Start-to-close timeout of one attempt (default 10 minutes). */
  timeout?: DurationLike;
  /**
   * A missed heartbeat for this long counts as a dead worker (default 30 s; the tool activity heartbeats
   * on its own every 5 s while the tool runs), and the call is retried on another one with the same
   * idempotency key.
   * Heartbeats are also how a running tool learns that its turn was cancelled (`ctx.signal`).
   */
  heartbeatTimeout?: DurationLike;
  /**
   * The tool only reads: no side effects, safe to run twice. Read-only tools take the **fast path**:
   * they run as local activities unless `local: false` (or a `heartbeatTimeout`) says otherwise, so a
   * step of model call + this tool is one workflow task and 7 history events instead of two and 12.
   */
  readOnly?: boolean;
  /**
   * Run as a **local activity**: in the worker that runs the turn, recorded as one marker instead of
   * three activity events, without a trip through the task queue — for quick tools (under a minute;
   * `timeout` defaults to 1 minute here). No heartbeats: a worker that dies mid-call is noticed by the
   * workflow task timeout (10 s) and the call retried with the same idempotency key. Cancelling the
   * turn aborts `ctx.signal`, once the workflow task the tool runs in is renewed (within about 8 s).
   * Default: true for `readOnly` tools without a `heartbeatTimeout`, else false; `false` keeps a
   * read-only tool a regular activity.
   */
  local?: boolean;
  /**
   * What the call would do, shown to the approver before they decide (run as an activity before the
   * approval request is raised), e.g. the size and first lines of the file a delete would remove.
   */
  preview?(args: z.output<S>, ctx: Omit<ToolContext, 'heartbeat'>): unknown;
}

/** Declares a tool; the identity function that gives `execute` typed arguments from the schema. */
export function defineTool<S extends z.ZodType>(def: ToolDefinition<S>): ToolDefinition<S> {
  if (!/^[a-zA-Z0-9_-]{1,64}$/.test(def.name)) {
    throw new Error(`tool name "${def.name}" must be 1-64 characters of letters, digits, _ or - (the OpenAI limit)`);
  }
  return def;
}

/** The JSON Schema the model sees for a tool's arguments. */
export function toolParameters(tool: ToolDefinition): Record<string, unknown> {
  const { $schema: _ignored, ...schema } = z.toJSONSchema(tool.input, { target: 'draft-7', io: 'input' }) as Record<
    string,
    unknown
  >;
  return schema;
}

/** Tool results reach the model as text. */
export function resultToText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined) return '';
  return JSON.stringify(value);
}
