/**
 * The agent's context window in a turn: before each model call, the prompt's tokens are estimated from
 * the provider's own count of the previous call (./core/context.ts); past the budget, the oldest whole
 * turns and steps are dropped — or, with `summarize`, the earlier turns are replaced by a summary the
 * model writes (an activity; if it fails or is empty, they are dropped). Each trim is `CONTEXT_TRIMMED`;
 * what a session must drop of its own conversation comes back in the turn's result.
 *
 * Since `context-low-water`: the answer has its room (`maxTokens`, or a quarter of the window when it is
 * unset), a trim drops to {@link LOW_WATER} of the budget (so the prompt's beginning stays the same for
 * several turns and the server reuses its cached prefix; one summary per trim), and the estimate never
 * falls below the count by characters' classes. Since `context-refused-retry`: a prompt the server
 * refuses as too long is trimmed to the server's own count and asked once more.
 */
import { isCancellation } from '@temporalio/workflow';
import {
  planTrim,
  promptChars,
  promptTokens,
  summaryMessage,
  usableCalibration,
  type Calibration,
} from '../core/context';
import type { TurnResult } from '../core/schemas';
import type { AgentSpec, ContextWindowSpec } from '../core/spec';
import { acts, modelOptions } from './activities';
import type { TurnConversation } from './conversation';
import { callModel, TurnFailureError, type ModelStep, type ModelTurn } from './model-call';
import {
  PATCH_CALIBRATION_BOUNDS,
  PATCH_CONTEXT_LOW_WATER,
  PATCH_CONTEXT_REFUSED_RETRY,
  PATCH_CONTEXT_WINDOW,
} from './patches';
import type { TurnRecorder } from './recorder';

/** A trim drops the prompt to this share of its budget. */
export const LOW_WATER = 0.6;

/** The tokens kept for the answer: `maxTokens`, or a quarter of the window when it is unset; at most half. */
export function answerReserve(maxTokens: number | undefined, window: ContextWindowSpec): number {
  return Math.min(maxTokens ?? Math.floor(window.tokens / 4), Math.floor(window.tokens / 2));
}

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
    carried?: ContextCarry,
    calibration?: Calibration,
  ) {
    const given = carried?.calibration ?? calibration;
    // From outside (a turn's or a session's input): one no provider could have counted is not used.
    this.calibration =
      given && !usableCalibration(given) && recorder.version.has(PATCH_CALIBRATION_BOUNDS) ? undefined : given;
    this.dropped = carried?.dropped ?? 0;
    this.summary = carried?.summary;
  }

  /**
   * Before a model call: trims (or summarises) when the prompt would pass the window. A lean run
   * (./versions.ts) with nothing to trim gets no promise back: an async `fit` cost every step four
   * promises in the sandbox, each with a captured stack (scripts/bench/measured-apart.md).
   */
  fit(agent: AgentSpec, window: ContextWindowSpec): Promise<void> | undefined {
    const fits = (strategy: ContextWindowSpec['strategy']) => !this.plan(agent, window, strategy).plan;
    if (this.recorder.version.lean && fits(window.strategy) && (window.strategy !== 'summarize' || fits('trim'))) {
      this.pendingChars = promptChars(this.conversation.all(), agent.tools);
      return undefined;
    }
    return this.fitting(agent, window);
  }

  private async fitting(agent: AgentSpec, window: ContextWindowSpec): Promise<void> {
    await this.trim(agent, window, window.strategy);
    // A summary may take more room than planned (the model's count differs from the estimate): what
    // still does not fit is dropped.
    if (window.strategy === 'summarize') await this.trim(agent, window, 'trim');
    this.pendingChars = promptChars(this.conversation.all(), agent.tools);
  }

  /** What a trim would drop now (nothing: `plan` undefined); checks the low-water patch once per call. */
  private plan(agent: AgentSpec, window: ContextWindowSpec, strategy: ContextWindowSpec['strategy']) {
    const { conversation } = this;
    const lowWater = this.recorder.version.has(PATCH_CONTEXT_LOW_WATER);
    const maxTokens = agent.modelSettings?.maxTokens;
    const reserve = lowWater
      ? answerReserve(maxTokens, window)
      : Math.min(maxTokens ?? 0, Math.floor(window.tokens / 2));
    // Room for the summary that replaces what is dropped.
    const room = strategy === 'summarize' ? summaryTokens(window) : 0;
    const budget = window.tokens - reserve - room;
    const plan = planTrim(conversation.all(), agent.tools, {
      budget,
      ...(lowWater && { target: Math.floor(budget * LOW_WATER), byClass: true }),
      start: conversation.firstAfterInstructions(),
      history: conversation.historyLength(),
      ...(this.calibration && { calibration: this.calibration }),
    });
    return { plan, lowWater };
  }

  private async trim(
    agent: AgentSpec,
    window: ContextWindowSpec,
    strategy: ContextWindowSpec['strategy'],
    refused?: { promptTokens?: number },
  ) {
    const { conversation } = this;
    const { plan, lowWater } = this.plan(agent, window, strategy);
    if (plan && this.recorder.version.has(PATCH_CONTEXT_WINDOW)) {
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
      this.recorder.record({
        type: 'CONTEXT_TRIMMED',
        strategy: summarised ? 'summarize' : 'trim',
        dropped: plan.history + plan.steps,
        tokensBefore: plan.tokensBefore,
        tokensAfter: promptTokens(conversation.all(), agent.tools, this.calibration, lowWater),
        ...(summarised && { summary: summarised.summary, usage: summarised.usage }),
        ...(refused && {
          refused: { ...(refused.promptTokens !== undefined && { promptTokens: refused.promptTokens }) },
        }),
      });
    }
  }

  /**
   * The step's model call. With a window, a prompt the server refuses as too long is trimmed and asked
   * once more: from the model call's rejection handler (no promise of its own a step), or, in runs from
   * before PATCH_WINDOW_IN_MODEL_CALL, by the `call` wrapper.
   */
  ask(turn: ModelTurn, call: number): Promise<ModelStep> {
    const ask = () => callModel(turn, call);
    const room = turn.agent.contextWindow;
    if (!room) return ask();
    if (!this.recorder.version.windowInModelCall) return this.call(turn.agent, room, ask);
    const retryRefused = (refused: TurnFailureError) => this.retryRefused(turn.agent, room, refused, ask);
    return callModel({ ...turn, retryRefused }, call);
  }

  /** A model call (`run`); when the server refuses its prompt as too long, `retryRefused`. */
  private async call(agent: AgentSpec, window: ContextWindowSpec, run: () => Promise<ModelStep>): Promise<ModelStep> {
    try {
      return await run();
    } catch (err) {
      if (!(err instanceof TurnFailureError) || !err.refused || !this.recorder.version.has(PATCH_CONTEXT_REFUSED_RETRY))
        throw err;
      return this.retryRefused(agent, window, err, run);
    }
  }

  /**
   * The server refused the prompt as too long (`refused`): its count calibrates the estimate, the prompt
   * is trimmed (to the low-water mark) and the call is asked once more (`run`, which does not retry). A
   * second refusal fails the turn (`ContextExhausted`).
   */
  private async retryRefused(
    agent: AgentSpec,
    window: ContextWindowSpec,
    refused: TurnFailureError,
    run: () => Promise<ModelStep>,
  ): Promise<ModelStep> {
    const { promptTokens: counted, contextTokens } = refused.refused ?? {};
    const chars = this.pendingChars;
    const estimate = promptTokens(this.conversation.all(), agent.tools, this.calibration, true);
    // The server's count of this very prompt (or, when it gave none, more than the window holds).
    const tokens = counted ?? Math.max(estimate, window.tokens) + 1;
    this.calibration = usableCalibration({ tokens, chars }) ?? this.calibration;
    const tokensOfServer = contextTokens !== undefined ? Math.min(contextTokens, window.tokens) : window.tokens;
    await this.trim(agent, { ...window, tokens: tokensOfServer }, 'trim', {
      ...(counted !== undefined && { promptTokens: counted }),
    });
    this.pendingChars = promptChars(this.conversation.all(), agent.tools);
    return run();
  }

  /** After a model call: the provider's count of its prompt calibrates the next estimate (never an estimate). */
  observed(): void {
    const last = this.recorder.state.events.at(-1);
    if (last?.type !== 'MODEL_CALLED' || last.usageEstimated || last.usage.inputTokens <= 0) return;
    const counted = { tokens: last.usage.inputTokens, chars: this.pendingChars };
    if (!usableCalibration(counted) && this.recorder.version.has(PATCH_CALIBRATION_BOUNDS)) return; // a server's nonsense count
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
            turnId: this.recorder.state.turnId,
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
