/**
 * The context window's arithmetic (`defineAgent({ contextWindow })`): how many tokens the next prompt
 * will take — counted from the provider's own count of an earlier prompt (tokens per character of that
 * prompt), or at four characters a token before there is one — and which of the oldest messages to drop
 * so it fits: whole earlier turns first, then whole steps of this turn (an assistant message with its tool
 * results), never the instructions, the turn's input or its newest step. Pure: workflow code uses it.
 */
import type { ChatMessage, ToolSpec } from './spec';
import { classTokens } from './token-estimate';

/** A provider's count: `tokens` for a prompt of `chars` characters (JSON of its messages and tools). */
export interface Calibration {
  tokens: number;
  chars: number;
}

export const CHARS_PER_TOKEN = 4;

export function promptChars(messages: readonly ChatMessage[], tools: readonly ToolSpec[]): number {
  return JSON.stringify(messages).length + JSON.stringify(tools).length;
}

/**
 * Tokens per character a calibration may say: a prompt of whitespace runs at the low end, one character
 * a token or a few (CJK, emoji, a chat template around a short prompt) at the high end.
 */
export const CALIBRATION_RATIO = { min: 1 / 64, max: 4 } as const;

/**
 * The calibration if it is one a provider could have counted — positive whole numbers, at most
 * `Number.MAX_SAFE_INTEGER`, within {@link CALIBRATION_RATIO} — else undefined (then four characters a
 * token). It may come from outside: a turn's `contextCalibration`, a session's carried state.
 */
export function usableCalibration(c: unknown): Calibration | undefined {
  if (!c || typeof c !== 'object') return undefined;
  const { tokens, chars } = c as { tokens?: unknown; chars?: unknown };
  const count = (n: unknown): n is number => typeof n === 'number' && Number.isSafeInteger(n) && n > 0;
  if (!count(tokens) || !count(chars)) return undefined;
  const ratio = tokens / chars;
  return ratio >= CALIBRATION_RATIO.min && ratio <= CALIBRATION_RATIO.max ? { tokens, chars } : undefined;
}

export function estimateTokens(chars: number, calibration?: Calibration): number {
  if (!calibration || calibration.chars <= 0 || calibration.tokens <= 0) return Math.ceil(chars / CHARS_PER_TOKEN);
  return Math.ceil((chars * calibration.tokens) / calibration.chars);
}

/** What to drop: `history` messages from `start` (earlier turns), then `steps` messages after the input. */
export interface TrimPlan {
  start: number;
  history: number;
  /** Where this turn's steps start (right after its input message). */
  stepsStart: number;
  steps: number;
  tokensBefore: number;
  tokensAfter: number;
}

/** Lengths of the units in `messages[from, to)`: a unit starts at each message of `startsUnit`. */
function units(
  messages: readonly ChatMessage[],
  from: number,
  to: number,
  startsUnit: (m: ChatMessage) => boolean,
): number[] {
  const out: number[] = [];
  for (let i = from; i < to; i++) {
    if (out.length === 0 || startsUnit(messages[i]!)) out.push(1);
    else out[out.length - 1]! += 1;
  }
  return out;
}

/** How a trim is planned. */
export interface TrimOptions {
  /** Past this many tokens, the prompt is trimmed… */
  budget: number;
  /** …down to this many (a low-water mark; default: the budget). */
  target?: number;
  start: number;
  history: number;
  calibration?: Calibration;
  /** Never estimate below the characters' classes' count (./token-estimate.ts). */
  byClass?: boolean;
}

/** The estimate of a prompt of `chars` characters whose characters' classes count `byClass` tokens. */
export function estimatePrompt(chars: number, byClass: number | undefined, calibration?: Calibration): number {
  return Math.max(estimateTokens(chars, calibration), byClass ?? 0);
}

/** The prompt's estimate as `ContextWindow` makes it (with `byClass`, the class count as a floor). */
export function promptTokens(
  messages: readonly ChatMessage[],
  tools: readonly ToolSpec[],
  calibration: Calibration | undefined,
  byClass: boolean,
): number {
  const classes = byClass ? classTokens(JSON.stringify(messages)) + classTokens(JSON.stringify(tools)) : undefined;
  return estimatePrompt(promptChars(messages, tools), classes, calibration);
}

/**
 * The smallest drop of oldest units that brings the prompt to `target` tokens once it is past `budget`,
 * or undefined when it fits already. `start`: the first message after the instructions; `history`:
 * earlier turns' messages from there. When even the largest drop does not fit, it is still taken (the
 * call may then fail at the provider, clearly).
 */
export function planTrim(
  messages: readonly ChatMessage[],
  tools: readonly ToolSpec[],
  opts: TrimOptions,
): TrimPlan | undefined {
  const target = Math.min(opts.target ?? opts.budget, opts.budget);
  const classOf = (v: unknown) => (opts.byClass ? classTokens(JSON.stringify(v)) : 0);
  const tokensOf = (chars: number, classes: number) =>
    estimatePrompt(chars, opts.byClass ? classes : undefined, opts.calibration);
  const total = promptChars(messages, tools);
  const classSizes = messages.map(classOf);
  let classes = classSizes.reduce((a, b) => a + b, 0) + classOf(tools);
  const tokensBefore = tokensOf(total, classes);
  if (tokensBefore <= opts.budget) return undefined;
  const sizes = messages.map((m) => JSON.stringify(m).length + 1);
  const inputAt = opts.start + opts.history;
  const stepsStart = inputAt + 1;
  const historyUnits = units(messages, opts.start, inputAt, (m) => m.role === 'user');
  // This turn's steps: an assistant message opens one; the newest is kept.
  const stepUnits = units(messages, stepsStart, messages.length, (m) => m.role === 'assistant').slice(0, -1);
  let chars = total;
  let history = 0;
  let steps = 0;
  for (const n of historyUnits) {
    if (tokensOf(chars, classes) <= target) break;
    for (let i = 0; i < n; i++) {
      chars -= sizes[opts.start + history + i]!;
      classes -= classSizes[opts.start + history + i]!;
    }
    history += n;
  }
  for (const n of stepUnits) {
    if (tokensOf(chars, classes) <= target) break;
    for (let i = 0; i < n; i++) {
      chars -= sizes[stepsStart + steps + i]!;
      classes -= classSizes[stepsStart + steps + i]!;
    }
    steps += n;
  }
  if (history === 0 && steps === 0) return undefined;
  return { start: opts.start, history, stepsStart, steps, tokensBefore, tokensAfter: tokensOf(chars, classes) };
}

/** The message a summary of earlier turns becomes (a user message: a session's history holds only those). */
export function summaryMessage(summary: string): ChatMessage {
  return { role: 'user', content: `${SUMMARY_PREFIX}${summary}` };
}
export const SUMMARY_PREFIX = 'Summary of the earlier conversation (written to fit the context window):\n';
