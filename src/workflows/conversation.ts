/**
 * The turn's conversation: the messages the model sees (instructions, earlier turns, the input, then
 * each response and its tool results), served to the model activity by the `conversation` query so
 * history records each message once (src/core/conversation.ts).
 */
import { patched, setHandler } from '@temporalio/workflow';
import { conversationQuery, CONVERSATION_DESCRIPTION } from '../contract';
import { ConversationDigest } from '../core/conversation';
import type { TurnInput } from '../core/schemas';
import type { AgentSpec, AssistantMessage, ChatMessage, ModelRequest } from '../core/spec';
import { PATCH_CONVERSATION_BY_REFERENCE } from './patches';

export class TurnConversation {
  private readonly messages: ChatMessage[];
  private readonly digest: ConversationDigest;
  /** Turns started before 0.3 send the messages inline with every model call. */
  private readonly byReference: boolean;

  /** `carried`: the messages so far, when the turn continued as new. */
  constructor(
    private readonly agent: AgentSpec,
    input: TurnInput,
    carried?: ChatMessage[],
  ) {
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
        ...(req?.tools !== false && { tools: agent.tools }),
      }),
      { description: CONVERSATION_DESCRIPTION },
    );
    this.digest = new ConversationDigest(this.messages);
    this.byReference = patched(PATCH_CONVERSATION_BY_REFERENCE);
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
