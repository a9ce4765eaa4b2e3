/**
 * The agent's context window in a turn: before each model call, the prompt's tokens are estimated from
 * the provider's own count of the previous call (./core/context.ts); past the budget, the oldest whole
 * turns and steps are dropped — or, with `summarize`, the earlier turns are replaced by a summary the
 * model writes (an activity; if it fails or is empty, they are dropped). Each trim is `CONTEXT_TRIMMED`;
 * what a session must drop of its own conversation comes back in the turn's result.
 */
import { isCancellation, patched } from '@temporalio/workflow';
import {
  estimateTokens,
  planTrim,
  promptChars,
  summaryMessage,
  usableCalibration,
  type Calibration,
} from '../core/context';
import type { TurnResult } from '../core/schemas';
import type { AgentSpec, ContextWindowSpec } from '../core/spec';
import { acts, modelOptions } from './activities';
import type { TurnConversation } from './conversation';
import { PATCH_CALIBRATION_BOUNDS, PATCH_CONTEXT_WINDOW } from './patches';
import type { TurnRecorder } from './recorder';

/** What a continued run of the turn needs to go on counting. Plain JSON. */
export interface ContextCarry {
  history: number;
  calibration?: Calibration;
  dropped: number;
  summary?: string;
}

export class ContextWindow {
  private calibration: Calibration | undefined;
  /** The characters of the prompt of the call in flight (to calibrate by its usage). */
  private pendingChars = 0;
  /** Messages of the turn's input history dropped so far, and the summary standing in for them. */
  private dropped: number;
  private summary: string | undefined;

  constructor(
    private readonly conversation: TurnConversation,
    private readonly recorder: TurnRecorder,
    private readonly turnId: string,
    carried?: ContextCarry,
    calibration?: Calibration,
  ) {
    const given = carried?.calibration ?? calibration;
    // From outside (a turn's or a session's input): one no provider could have counted is not used.
    this.calibration = given && !usableCalibration(given) && patched(PATCH_CALIBRATION_BOUNDS) ? undefined : given;
    this.dropped = carried?.dropped ?? 0;
    this.summary = carried?.summary;
  }

  /** Before a model call: trims (or summarises) when the prompt would pass the window. */
  async fit(agent: AgentSpec, window: ContextWindowSpec): Promise<void> {
    await this.trim(agent, window, window.strategy);
    // A summary may take more room than planned (the model's count differs from the estimate): what
    // still does not fit is dropped.
    if (window.strategy === 'summarize') await this.trim(agent, window, 'trim');
    this.pendingChars = promptChars(this.conversation.all(), agent.tools);
  }

  private async trim(agent: AgentSpec, window: ContextWindowSpec, strategy: ContextWindowSpec['strategy']) {
    const { conversation } = this;
    const reserve = Math.min(agent.modelSettings?.maxTokens ?? 0, Math.floor(window.tokens / 2));
    // Room for the summary that replaces what is dropped.
    const room = strategy === 'summarize' ? summaryTokens(window) : 0;
    const start = conversation.firstAfterInstructions();
    const plan = planTrim(conversation.all(), agent.tools, {
      budget: window.tokens - reserve - room,
      start,
      history: conversation.historyLength(),
      ...(this.calibration && { calibration: this.calibration }),
    });
    if (plan && patched(PATCH_CONTEXT_WINDOW)) {
      const summarised =
        strategy === 'summarize' && plan.history > 0
          ? await this.summarise(agent, window, plan.start, plan.history)
          : undefined;
      // The steps first: they come after the history, so its indices stay put.
      if (plan.steps > 0) conversation.replace(plan.stepsStart, plan.steps, [], 0);
      // A summary this turn wrote is the first history message; the session never had it.
      const ownSummary = this.summary !== undefined && plan.history > 0 ? 1 : 0;
      if (plan.history > 0) {
        conversation.replace(
          plan.start,
          plan.history,
          summarised ? [summaryMessage(summarised.summary)] : [],
          plan.history,
        );
        this.dropped += plan.history - ownSummary;
        this.summary = summarised?.summary;
      }
      const after = promptChars(conversation.all(), agent.tools);
      this.recorder.record({
        type: 'CONTEXT_TRIMMED',
        strategy: summarised ? 'summarize' : 'trim',
        dropped: plan.history + plan.steps,
        tokensBefore: plan.tokensBefore,
        tokensAfter: estimateTokens(after, this.calibration),
        ...(summarised && { summary: summarised.summary, usage: summarised.usage }),
      });
    }
  }

  /** After a model call: the provider's count of its prompt calibrates the next estimate (never an estimate). */
  observed(): void {
    const last = this.recorder.state.events.at(-1);
    if (last?.type !== 'MODEL_CALLED' || last.usageEstimated || last.usage.inputTokens <= 0) return;
    const counted = { tokens: last.usage.inputTokens, chars: this.pendingChars };
    if (!usableCalibration(counted) && patched(PATCH_CALIBRATION_BOUNDS)) return; // a server's nonsense count
    this.calibration = counted;
  }

  /** The summary of the oldest `count` messages from `start`, or undefined when none could be had. */
  private async summarise(agent: AgentSpec, window: ContextWindowSpec, start: number, count: number) {
    try {
      return await acts.summarizeConversation.executeWithOptions(
        { ...modelOptions, summary: 'summarize the conversation' },
        [
          {
            model: agent.model,
            ...(agent.provider !== undefined && { provider: agent.provider }),
            ...(agent.api !== undefined && { api: agent.api }),
            turnId: this.turnId,
            messages: this.conversation.all().slice(start, start + count),
            maxTokens: summaryTokens(window),
          },
        ],
      );
    } catch (err) {
      if (isCancellation(err)) throw err;
      return undefined; // dropped instead: CONTEXT_TRIMMED says `trim`
    }
  }

  /** What the turn's result tells a session about its conversation. */
  result(): TurnResult['context'] {
    if (this.dropped === 0 && this.summary === undefined && !this.calibration) return undefined;
    return {
      dropped: this.dropped,
      ...(this.summary !== undefined && { summary: this.summary }),
      ...(this.calibration && { calibration: this.calibration }),
    };
  }

  carry(): ContextCarry {
    return {
      history: this.conversation.historyLength(),
      dropped: this.dropped,
      ...(this.calibration && { calibration: this.calibration }),
      ...(this.summary !== undefined && { summary: this.summary }),
    };
  }
}

/** The budget of a summary: an eighth of the window (at least 64 tokens). */
function summaryTokens(window: ContextWindowSpec): number {
  return Math.max(64, Math.floor(window.tokens / 8));
}
