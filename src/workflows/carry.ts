/**
 * Continue-as-new for a turn: a turn never dies of history size. When Temporal suggests it (or the
 * turn's own event budget is spent) at a quiet moment — between model calls, or while every open call
 * of a batch waits for a human — the turn continues as new with the same workflow id, carrying its
 * state, the agent's spec, the conversation, the ids it has used and the batch's waits with their
 * deadlines. Clients keep using the workflow id; `state`, `decide` and the result follow the latest run.
 */
import { continueAsNew, log, workflowInfo } from '@temporalio/workflow';
import type { AgentTurnWorkflow } from '../core/contract';
import { jsonBytes } from '../core/bounds';
import type { TurnInput } from '../core/schemas';
import type { AgentSpec, AssistantMessage, ChatMessage } from '../core/spec';
import { budgetedState, type TurnState } from '../core/state';
import type { BatchCall } from './batch';
import type { ContextCarry } from './context';

/** What a turn's next run starts from. Plain JSON. */
export interface TurnCarry {
  state: TurnState;
  spec: AgentSpec;
  messages: ChatMessage[];
  /** The model call whose batch is carried, or the next model call when there is none. */
  call: number;
  seenIds: string[];
  batch?: { message: AssistantMessage; calls: BatchCall[] };
  /** Structured output: invalid answers so far (their retries are bounded per turn, across runs). */
  invalidAnswers?: number;
  /** The context window's count (agents with `contextWindow`). */
  context?: ContextCarry;
}

/** Events per run before the turn continues as new, unless its input sets another budget. */
export const DEFAULT_MAX_HISTORY_EVENTS = 20_000;
/** History bytes per run before it continues as new (Temporal terminates a run at 50 MB). */
const MAX_HISTORY_BYTES = 20_000_000;
/** The carry is the next run's input: it must stay under Temporal's 2 MB payload limit. */
const MAX_CARRY_BYTES = 1_800_000;

export class RunBudget {
  constructor(
    private readonly maxEvents: number = DEFAULT_MAX_HISTORY_EVENTS,
    /** Never due: a turn inside a session (its session continues as new between turns), or one whose carry was too large. */
    private gaveUp = false,
  ) {}

  /** Time to continue as new: Temporal suggests it, or this run's history is past its budget. */
  due(): boolean {
    if (this.gaveUp) return false;
    const info = workflowInfo();
    return info.continueAsNewSuggested || info.historyLength > this.maxEvents || info.historySize > MAX_HISTORY_BYTES;
  }

  /**
   * Continues as new with `carry` (never returns), or — when the carry itself is too large to be an
   * input — logs why and stops trying for this run.
   */
  async continueWith(input: TurnInput, carry: TurnCarry): Promise<void> {
    const bounded: TurnCarry = { ...carry, state: budgetedState(carry.state, 500_000) };
    const bytes = jsonBytes(bounded);
    if (bytes > MAX_CARRY_BYTES) {
      this.gaveUp = true;
      log.warn('turn cannot continue as new: its conversation is too large to carry', { bytes });
      return;
    }
    const { carried: _previous, ...options } = input;
    await continueAsNew<AgentTurnWorkflow>({ ...options, carried: bounded });
  }
}
