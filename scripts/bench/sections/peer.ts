/**
 * Peer: the official Temporal integration (`@temporalio/openai-agents` with `@openai/agents`), run
 * from `bench/peer/` (its own package.json and node_modules) against the same dev server and the
 * same scripted model, with the same instant tool.
 */
import type { BenchEnv } from '../env';
import type { Summary } from '../stats';

export interface PeerResult {
  ran: boolean;
  /** Why it did not run (install or runtime error, verbatim). */
  error?: string;
  versions?: Record<string, string>;
  stepsPerTurn?: number;
  turns?: number;
  stepMs?: Summary;
  clientMsPerStep?: number;
  historyEvents?: number;
  eventsPerStep?: number;
  historyProtoBytes?: number;
}

export async function runPeer(_env: BenchEnv, _opts: { steps: number; turns: number }): Promise<PeerResult> {
  return { ran: false, error: 'not implemented yet' };
}
