/**
 * `summarizeConversation`: the context window's `summarize` strategy — one model call, through the
 * agent's own endpoint and API, that writes what the oldest part of a conversation said. The summary
 * is clipped to its budget; an empty one is refused (the workflow then trims instead).
 */
import { ApplicationFailure } from '@temporalio/activity';
import { clip } from '../../core/bounds';
import type { ChatMessage, SummaryRequest, SummaryResponse } from '../../core/spec';
import { assistantMessage, estimateUsage, type RawAnswer } from './answer';
import type { Prompt } from './prompt';

export const SUMMARY_INSTRUCTIONS =
  'Summarise the conversation below for an assistant that will continue it without seeing it. Keep facts, ' +
  'names, numbers, decisions, promises and open questions; leave out greetings. Answer with the summary only.';

/** Characters of transcript one message may add, and in all (the oldest part of a window, not a book). */
const PER_MESSAGE_CHARS = 4_000;
const TRANSCRIPT_CHARS = 400_000;

/** The messages as one transcript the model reads (tool calls and results as lines of their own). */
export function transcript(messages: readonly ChatMessage[]): string {
  const lines = messages.map((m) => {
    if (m.role === 'tool') return `tool result: ${clip(m.content, PER_MESSAGE_CHARS)}`;
    if (m.role === 'assistant') {
      const calls = (m.tool_calls ?? []).map(
        (c) => `assistant called ${c.function.name}(${clip(c.function.arguments, 500)})`,
      );
      return [...(m.content ? [`assistant: ${clip(m.content, PER_MESSAGE_CHARS)}`] : []), ...calls].join('\n');
    }
    return `${m.role}: ${clip(m.content, PER_MESSAGE_CHARS)}`;
  });
  return clip(lines.join('\n'), TRANSCRIPT_CHARS);
}

/** The request as a one-off prompt for `ask`. */
export function summaryPrompt(req: SummaryRequest): Prompt {
  return {
    model: req.model,
    ...(req.provider !== undefined && { provider: req.provider }),
    ...(req.api !== undefined && { api: req.api }),
    stream: false,
    turnId: req.turnId,
    call: 0,
    settings: { maxTokens: req.maxTokens },
    messages: [
      { role: 'system', content: SUMMARY_INSTRUCTIONS },
      { role: 'user', content: transcript(req.messages) },
    ],
    tools: [],
  };
}

/** The summary from the model's answer: clipped to about four characters a token of its budget; never empty. */
export function summaryOf(raw: RawAnswer, prompt: Prompt, maxTokens: number): SummaryResponse {
  const message = assistantMessage({ ...raw, calls: [] }, 0);
  const summary = clip((message.content ?? '').trim(), maxTokens * 4);
  if (!summary)
    throw ApplicationFailure.create({
      type: 'EmptySummary',
      message: 'the model wrote an empty summary',
      nonRetryable: true,
    });
  return { summary, usage: raw.usage ?? estimateUsage(prompt.messages, [], message) };
}
