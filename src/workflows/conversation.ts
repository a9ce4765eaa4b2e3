/**
 * The turn's conversation: the messages the model sees (instructions, earlier turns, the input, then
 * each response and its tool results), served to the model activity by the `conversation` query so
 * history records each message once (src/core/conversation.ts).
 */
import { setHandler } from '@temporalio/workflow';
import { conversationQuery, CONVERSATION_DESCRIPTION } from '../core/contract';
import { ConversationDigest } from '../core/conversation';
import type { TurnInput } from '../core/schemas';
import type { AgentSpec, AssistantMessage, ChatMessage, ConversationRef, ModelRequest } from '../core/spec';
import { PATCH_CONVERSATION_BY_REFERENCE } from './patches';
import type { RunVersion } from './versions';

export class TurnConversation {
  private messages: ChatMessage[];
  private digest: ConversationDigest;
  /** The messages of earlier turns (a session's history) still in the conversation, after the instructions. */
  private history: number;
  /** Turns started before 0.3 send the messages inline with every model call. */
  private readonly byReference: boolean;

  /** `carried`: the messages so far, when the turn continued as new. */
  constructor(
    private agent: AgentSpec,
    input: TurnInput,
    version: RunVersion,
    carried?: ChatMessage[],
    /** A continued run's count of earlier turns' messages (absent: as the input gave them). */
    carriedHistory?: number,
  ) {
    this.history = carriedHistory ?? input.history?.length ?? 0;
    this.messages = carried ?? [
      ...(agent.instructions ? [{ role: 'system' as const, content: agent.instructions }] : []),
      ...(input.history ?? []),
      { role: 'user', content: input.input },
    ];
    setHandler(
      conversationQuery,
      (req) => ({
        messages: this.messages.slice(req?.from ?? 0, req?.count),
        ...(req?.from !== undefined && { from: req.from }),
        // The current agent's: a handoff changes them (and the instructions, so the digest: the model
        // activity then reads the conversation and its tools again).
        ...(req?.tools !== false && { tools: this.agent.tools }),
      }),
      { description: CONVERSATION_DESCRIPTION },
    );
    this.digest = new ConversationDigest(this.messages);
    this.byReference = version.has(PATCH_CONVERSATION_BY_REFERENCE);
  }

  /** The model activity's input for call number `call`. */
  request(turnId: string, call: number): ModelRequest {
    const { model, provider, api, stream, tools, modelSettings, output, name } = this.agent;
    const common = {
      model,
      ...(provider !== undefined && { provider }),
      ...(api !== undefined && { api }),
      stream,
      turnId,
      call,
      ...(modelSettings && { settings: modelSettings }),
      ...(output && { output: { ...output, agent: name } }),
    };
    return this.byReference
      ? { ...common, conversation: this.digest.ref() }
      : { ...common, messages: this.messages, tools };
  }

  /** The messages so far (the turn carries them when it continues as new). */
  all(): ChatMessage[] {
    return this.messages;
  }

  /** The conversation as it is now, by reference (for an activity that reads it back). */
  reference(): ConversationRef {
    return this.digest.ref();
  }

  /** How many messages of earlier turns are still in it (right after the instructions, if any). */
  historyLength(): number {
    return this.history;
  }

  /** Where the messages after the instructions start. */
  firstAfterInstructions(): number {
    return this.messages[0]?.role === 'system' ? 1 : 0;
  }

  /**
   * Messages [from, from + count) are replaced by `replacement` (the context window's trim or summary).
   * Earlier turns' messages among them leave the history count; a replacement counts as history.
   */
  replace(from: number, count: number, replacement: ChatMessage[], historyDropped: number): void {
    this.messages = [...this.messages.slice(0, from), ...replacement, ...this.messages.slice(from + count)];
    this.history = Math.max(0, this.history - historyDropped) + replacement.length;
    this.digest = new ConversationDigest(this.messages);
  }

  /**
   * A handoff: the rest of the turn runs on `agent`, whose instructions replace the old ones; with an
   * input filter's `messages`, those are the conversation after them (earlier turns no longer told apart).
   */
  switchAgent(agent: AgentSpec, messages?: ChatMessage[]): void {
    const rest = messages ?? this.messages.slice(this.firstAfterInstructions());
    const instructions = agent.instructions ? [{ role: 'system' as const, content: agent.instructions }] : [];
    if (messages) this.history = 0;
    this.agent = agent;
    this.messages = [...instructions, ...rest];
    this.digest = new ConversationDigest(this.messages);
  }

  /** A message from Tiller to the model as the user (why an answer was refused). */
  addUserMessage(content: string): void {
    this.messages.push({ role: 'user', content });
  }

  addResponse(message: AssistantMessage): void {
    this.messages.push(message);
  }

  /** The results of the calls `message` asked for, in its order, under the model's own call ids. */
  addToolResults(message: AssistantMessage, results: readonly string[]): void {
    message.tool_calls?.forEach((t, i) =>
      this.messages.push({ role: 'tool', tool_call_id: t.id, content: results[i] ?? '' }),
    );
  }
}
