/**
 * The tool activities' inputs and answers (part of the plain-JSON spec, src/core/spec/index.ts): approve a
 * call, run it, preview it, check its arguments.
 */

import type { ApprovalOutcome, HookFailure, ToolCallContext } from './hooks';

export interface ApproveToolResponse {
  outcome: ApprovalOutcome;
  hookFailures: HookFailure[];
}

export interface RunToolRequest extends Omit<ToolCallContext, 'args'> {
  /** The arguments exactly as the model sent them (a JSON string). */
  rawArgs: string;
  /** Cut the result to this many characters (with a marker). */
  maxResultChars?: number;
}

export interface RunToolResponse {
  ok: boolean;
  /** The text the model sees: the tool's result, or `Error: ...` when it failed. */
  content: string;
  error?: string;
  durationMs: number;
  hookFailures: HookFailure[];
}

export interface PreviewRequest extends Omit<ToolCallContext, 'args'> {
  rawArgs: string;
}

/** `ok: false` means the arguments are invalid: the call fails without bothering a human. */
export type PreviewResponse = { ok: true; preview?: string } | { ok: false; error: string };

export interface ValidateArgsRequest {
  tool: string;
  args: unknown;
}

export type ValidateArgsResponse = { ok: true } | { ok: false; error: string };
