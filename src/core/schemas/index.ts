/**
 * The public wire contract (docs/architecture.md, "The wire contract") as zod schemas. Everything here is plain JSON so the
 * `temporal` CLI, the Temporal UI and other SDKs can read and write it with the default converter.
 * Pure: imported by workflow code, activities, the client and the CLI alike.
 *
 * The entry of the contract: each group lives in its own module — decisions and trust
 * (decisions.ts), what a turn's state records (records.ts), a turn's input and result
 * (turn.ts), sessions and progress (session.ts).
 */
import type { z } from 'zod';
import { clip } from '../bounds';

export { Decision, RecordedDecision, TrustGrant, TrustScope } from './decisions';
export {
  emptyUsage,
  ToolCallRecord,
  ToolCallStatus,
  TurnStatus,
  Usage,
  type PendingApproval,
  type SubAgentRun,
} from './records';
export {
  Principal,
  RevokeTrustInput,
  SendInput,
  SessionInput,
  TurnProgressCheck,
  TurnRef,
  type CheckedProgress,
  type SessionCarry,
  type SessionState,
  type TurnProgress,
  type TurnSummary,
} from './session';
export { ConversationMessage, SubAgentArgs, TurnInput, TurnResult } from './turn';

/** The version of the wire contract (workflow inputs, results, queries) this code speaks. */
export const WIRE_VERSION = 1;

/** One readable line from a zod error, e.g. `approved: approved must be true or false`. */
export function formatZodError(error: z.ZodError): string {
  const text = error.issues
    .slice(0, 10)
    .map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message))
    .join('; ');
  // Issues quote the input (unknown keys, paths): bounded, whatever was sent.
  return clip(text, 1_000);
}
