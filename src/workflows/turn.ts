/**
 * `agentTurn`: one agent turn as a durable workflow. Model call → tool calls → model call … until the
 * model answers without tool calls. Every effect is an activity; every change of state is an event
 * folded by the pure reducer, so the `state` query is rebuilt exactly by replay after any restart.
 */
import {
  ActivityFailure,
  ApplicationFailure,
  condition,
  isCancellation,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  workflowInfo,
  allHandlersFinished,
  log,
  patched,
  type ActivityOptions,
  type LocalActivityOptions,
} from '@temporalio/workflow';
import type { TillerActivities } from '../activities';
import { parseToolArgs } from '../core/args';
import { ConversationDigest } from '../core/conversation';
import type { TurnEventBody } from '../core/events';
import { approvalGate, deniedResult, truncateResult, unknownToolResult } from '../core/policy';
import {
  formatZodError,
  SubAgentArgs,
  TurnInput,
  type RecordedDecision,
  type TurnResult,
  type TurnState,
} from '../core/schemas';
import type { AgentSpec, ChatMessage, GateSpec, HookFailure, RunToolResponse } from '../core/spec';
import { createTurnState, emit } from '../core/state';
import { ApprovalDesk, DecisionRejected, describePayload } from './approvals';
import {
  conversationQuery,
  CONVERSATION_DESCRIPTION,
  decideSignal,
  decideUpdate,
  DECIDE_DESCRIPTION,
  stateQuery,
  STATE_DESCRIPTION,
} from './messages';
import { turnProgressSignal } from './session-messages';
import { SubAgents } from './subagents';
import { countEvent } from './metrics';
import { Visibility } from './visibility';

/** Patch ids, one per workflow change that alters command order (kept until no old turn can be open). */
export const PATCH_VALIDATE_BEFORE_APPROVAL = 'validate-args-before-approval';
/** Model calls record `{count, digest}` of the conversation instead of the messages (v0.3). */
export const PATCH_CONVERSATION_BY_REFERENCE = 'conversation-by-reference';

const MODEL_ERRORS_NOT_RETRIED = ['ModelBadRequest', 'ModelAuthError', 'ModelNotFound', 'ModelUnprocessable'];

const modelOptions: ActivityOptions = {
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '20 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '30 seconds',
    maximumAttempts: 6,
    nonRetryableErrorTypes: MODEL_ERRORS_NOT_RETRIED,
  },
};
const hookOptions: ActivityOptions = {
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumAttempts: 3 },
};
// A tool that throws is folded into its result inside the activity, so retries here only cover a
// worker that died or timed out mid-call; tools get the idempotency key for exactly that case.
const toolOptions: ActivityOptions = {
  startToCloseTimeout: '10 minutes',
  // runTool heartbeats while the tool runs: a worker killed mid-tool is noticed in 30 s, not 10 minutes.
  heartbeatTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumAttempts: 3 },
};

// Tools marked `local`: run in the workflow's worker, recorded as a marker (no heartbeats there).
const localToolOptions: LocalActivityOptions = {
  startToCloseTimeout: '1 minute',
  retry: toolOptions.retry!,
};

const acts = proxyActivities<TillerActivities>(modelOptions);
const localActs = proxyLocalActivities<TillerActivities>(localToolOptions);

function now(): string {
  return new Date().toISOString();
}

function describeFailure(err: unknown): string {
  if (err instanceof ActivityFailure && err.cause instanceof ApplicationFailure) {
    return `${err.cause.type ?? 'Error'}: ${err.cause.message}`;
  }
  if (err instanceof ActivityFailure) return `${err.message}${err.cause ? `: ${err.cause.message}` : ''}`;
  return err instanceof Error ? err.message : String(err);
}

/** Arguments as recorded in state: parsed JSON when they parse, else the raw string the model sent. */
function argsForDisplay(raw: string): unknown {
  const parsed = parseToolArgs(raw);
  return parsed.ok ? parsed.value : raw;
}

/** Arguments for state and events; oversized ones are summarised so they never bloat history twice. */
function displayArgs(raw: string, spec: AgentSpec): unknown {
  if (spec.limits && raw.length > spec.limits.maxToolArgChars) return `[${raw.length} characters of arguments]`;
  return argsForDisplay(raw);
}

class TurnFailed extends Error {}

export async function agentTurn(rawInput: TurnInput): Promise<TurnResult> {
  const parsed = TurnInput.safeParse(rawInput);
  if (!parsed.success) {
    throw ApplicationFailure.create({
      type: 'InvalidTurnInput',
      message: `invalid agentTurn input: ${formatZodError(parsed.error)}`,
      nonRetryable: true,
    });
  }
  const input = parsed.data;
  const { workflowId } = workflowInfo();
  const state = createTurnState({
    turnId: workflowId,
    agent: input.agent,
    ...(input.sessionId !== undefined && { sessionId: input.sessionId }),
    ...(input.trust !== undefined && { trust: input.trust }),
  });
  let visibility: Visibility | undefined;
  let spec: AgentSpec | undefined;
  const record = (body: TurnEventBody) => {
    emit(state, body, now());
    visibility?.sync();
    countEvent(body, { agent: state.agent, model: spec?.model ?? '' });
  };
  const recordHookFailures = (failures: HookFailure[], toolCallId?: string) => {
    for (const f of failures) {
      log.warn('hook failed', { hook: f.hook, hookName: f.hookName, error: f.error, toolCallId });
      record({ type: 'HOOK_FAILED', ...f, ...(toolCallId !== undefined && { toolCallId }) });
    }
  };
  const subAgents = new SubAgents(state, record);
  const desk = new ApprovalDesk({
    state,
    record,
    now,
    // A sub-agent's arguments follow Tiller's own schema, not a worker tool's: checked right here.
    validateArgs: (tool, args) =>
      isSubAgent(tool)
        ? Promise.resolve(validateSubAgentArgs(tool, args))
        : acts.validateToolArgs.executeWithOptions({ ...hookOptions, summary: `validate edited ${tool} args` }, [
            { tool, args },
          ]),
    notifyPending: async (ctx) => {
      if (!spec?.hooks.onApprovalPending) return;
      const { hookFailures } = await acts.notifyApprovalPending.executeWithOptions(
        {
          ...hookOptions,
          summary: `notify ${ctx.call.tool} pending${ctx.reminder ? ` (reminder ${ctx.reminder})` : ''}`,
        },
        [ctx],
      );
      recordHookFailures(hookFailures, ctx.call.toolCallId);
    },
  });

  setHandler(stateQuery, () => state, { description: STATE_DESCRIPTION });
  setHandler(decideUpdate, (decision) => desk.apply(decision, 'update'), {
    validator: (decision) => {
      desk.check(decision);
    },
    description: DECIDE_DESCRIPTION,
  });
  setHandler(
    decideSignal,
    async (raw) => {
      try {
        await desk.apply(raw, 'signal');
      } catch (err) {
        if (err instanceof DecisionRejected) {
          record({ type: 'DECISION_REJECTED', via: 'signal', reason: err.message, ...describePayload(raw) });
        } else if (!(err instanceof ApplicationFailure && err.type === 'DecisionRejected')) {
          throw err; // already recorded by the desk when it is a DecisionRejected failure
        }
      }
    },
    { description: DECIDE_DESCRIPTION },
  );

  // Sub-agents (child turns) report what they wait for; see ./subagents.ts.
  setHandler(turnProgressSignal, (progress) => subAgents.onProgress(progress));

  function isSubAgent(tool: string): boolean {
    return spec?.tools.some((t) => t.name === tool && t.subAgent !== undefined) ?? false;
  }

  function validateSubAgentArgs(
    tool: string,
    args: unknown,
  ): { ok: true; input: string } | { ok: false; error: string } {
    const checked = SubAgentArgs.safeParse(args);
    return checked.success
      ? { ok: true, input: checked.data.input }
      : { ok: false, error: `invalid arguments for ${tool}: ${formatZodError(checked.error)}` };
  }

  const seenIds = new Set<string>();
  function uniqueId(id: string): string {
    let candidate = id;
    for (let n = 2; seenIds.has(candidate); n++) candidate = `${id}#${n}`;
    seenIds.add(candidate);
    return candidate;
  }

  /** The smaller of the agent's per-turn budget and what the session has left, if either is set. */
  function tokenBudget(spec: AgentSpec): number | undefined {
    const limits = [spec.limits?.turnTokens, input.tokenBudget].filter((n): n is number => n !== undefined);
    return limits.length ? Math.min(...limits) : undefined;
  }

  function fail(message: string): never {
    throw new TurnFailed(message);
  }

  /** Runs one requested tool call through approve → start → run → end; returns what the model sees. */
  async function processToolCall(spec: AgentSpec, id: string, tool: string, rawArgs: string): Promise<string> {
    const parsedArgs = parseToolArgs(rawArgs);
    const args = displayArgs(rawArgs, spec);
    const known = spec.tools.map((t) => t.name);
    if (!known.includes(tool)) {
      const error = unknownToolResult(tool, known);
      record({ type: 'TOOL_FAILED', toolCallId: id, tool, args, error });
      return error;
    }
    if (spec.limits && rawArgs.length > spec.limits.maxToolArgChars) {
      const error = `Error: the arguments for ${tool} are ${rawArgs.length} characters long; the limit is ${spec.limits.maxToolArgChars}.`;
      record({ type: 'TOOL_FAILED', toolCallId: id, tool, args, error });
      return error;
    }
    if (!parsedArgs.ok) {
      const error = `Error: the arguments for ${tool} are not valid JSON (${parsedArgs.error}). Send a JSON object.`;
      record({ type: 'TOOL_FAILED', toolCallId: id, tool, args, error });
      return error;
    }
    const subAgent = isSubAgent(tool);
    if (subAgent) {
      const checked = validateSubAgentArgs(tool, parsedArgs.value);
      if (!checked.ok) {
        record({ type: 'TOOL_FAILED', toolCallId: id, tool, args, error: checked.error });
        return `Error: ${checked.error}`;
      }
    }

    const call = {
      agent: spec.name,
      turnId: state.turnId,
      workflowId,
      toolCallId: id,
      tool,
      args,
      ...(spec.inherits && { inheritsFrom: spec.inherits }),
    };
    const verdict = approvalGate(spec, tool, state.trust);
    let runArgs = rawArgs;
    const askHuman = async (gate: GateSpec): Promise<string | undefined> => {
      let preview: string | undefined;
      // Since 0.2 every gated call's arguments are checked before a human is asked, not only a tool
      // with a preview; turns paused on 0.1 (no marker in their history) keep the old path on replay.
      // A sub-agent call has no worker tool to preview; its arguments were checked above.
      if (!subAgent && (spec.tools.find((t) => t.name === tool)?.preview || patched(PATCH_VALIDATE_BEFORE_APPROVAL))) {
        const prepared = await previewCall(spec, id, tool, rawArgs);
        if (!prepared.ok) return prepared.error;
        preview = prepared.preview;
      }
      const outcome = await desk.wait(call, gate, preview);
      if (outcome.kind === 'refused') return outcome.result;
      if (outcome.decision.args !== undefined) runArgs = JSON.stringify(outcome.decision.args);
      return undefined;
    };
    if (verdict.kind === 'proceed' && verdict.via === 'trust') {
      const decision: RecordedDecision = {
        id,
        approved: true,
        scope: verdict.grant.scope,
        at: now(),
        via: 'trust',
        ...(verdict.grant.approver !== undefined && { approver: verdict.grant.approver }),
      };
      record({ type: 'TOOL_APPROVED', toolCallId: id, tool, args, decision });
    } else if (verdict.kind === 'ask') {
      const refusal = await askHuman(verdict.gate);
      if (refusal !== undefined) return refusal;
    } else if (verdict.kind === 'hook') {
      // askHuman is called inside the hook's continuation (not after it returns): the same microtask
      // order as the recorded histories, so concurrent calls keep their command order on replay.
      const refusal = await consultApprovalHook(spec, id, tool, args, () => askHuman(spec.gates[tool] ?? {}));
      if (refusal !== undefined) return refusal;
    }

    const effectiveArgs = runArgs === rawArgs ? args : argsForDisplay(runArgs);
    record({ type: 'TOOL_STARTED', toolCallId: id, tool, args: effectiveArgs });
    if (subAgent) return runSubAgent(spec, id, tool, runArgs);
    const toolSpec = spec.tools.find((t) => t.name === tool);
    let outcome: RunToolResponse;
    try {
      const request = {
        agent: spec.name,
        turnId: state.turnId,
        workflowId,
        toolCallId: id,
        tool,
        rawArgs: runArgs,
        ...(spec.limits && { maxResultChars: spec.limits.maxToolResultChars }),
        ...(spec.inherits && { inheritsFrom: spec.inherits }),
      };
      const timeout = toolSpec?.timeout !== undefined && { startToCloseTimeout: toolSpec.timeout };
      outcome = toolSpec?.local
        ? await localActs.runTool.executeWithOptions(
            { ...localToolOptions, ...timeout, summary: `tool ${tool} (local)` },
            [request],
          )
        : await acts.runTool.executeWithOptions(
            {
              ...toolOptions,
              ...timeout,
              ...(toolSpec?.heartbeatTimeout !== undefined && { heartbeatTimeout: toolSpec.heartbeatTimeout }),
              summary: `tool ${tool}`,
            },
            [request],
          );
    } catch (err) {
      if (isCancellation(err)) throw err;
      const error = `Error: ${tool} did not complete: ${describeFailure(err)}`;
      record({ type: 'TOOL_FAILED', toolCallId: id, tool, args, error });
      return error;
    }
    recordHookFailures(outcome.hookFailures, id);
    if (outcome.ok) {
      record({ type: 'TOOL_ENDED', toolCallId: id, tool, durationMs: outcome.durationMs, result: outcome.content });
    } else {
      record({
        type: 'TOOL_FAILED',
        toolCallId: id,
        tool,
        args,
        durationMs: outcome.durationMs,
        error: outcome.error ?? outcome.content,
      });
    }
    return outcome.content;
  }

  /** Runs an approved sub-agent call as a child turn; its answer (or what went wrong) is the tool result. */
  async function runSubAgent(spec: AgentSpec, id: string, tool: string, runArgs: string): Promise<string> {
    const parsed = parseToolArgs(runArgs);
    const checked = validateSubAgentArgs(tool, parsed.ok ? parsed.value : runArgs);
    if (!checked.ok) {
      record({ type: 'TOOL_FAILED', toolCallId: id, tool, args: argsForDisplay(runArgs), error: checked.error });
      return `Error: ${checked.error}`;
    }
    const startedAt = Date.now();
    const budget = tokenBudget(spec);
    const outcome = await subAgents.run({
      spec,
      tool,
      toolCallId: id,
      input: checked.input,
      trust: state.trust,
      ...(budget !== undefined && { tokenBudget: Math.max(0, budget - state.usage.totalTokens) }),
    });
    const durationMs = Date.now() - startedAt;
    if (outcome.ok) {
      const result = spec.limits ? truncateResult(outcome.output, spec.limits.maxToolResultChars) : outcome.output;
      record({ type: 'TOOL_ENDED', toolCallId: id, tool, durationMs, result });
      return result;
    }
    record({
      type: 'TOOL_FAILED',
      toolCallId: id,
      tool,
      args: argsForDisplay(runArgs),
      durationMs,
      error: outcome.error,
    });
    return outcome.error;
  }

  /**
   * Shows the approver what the call would do (the tool's `preview`), validating its arguments first:
   * invalid arguments fail the call without bothering a human.
   */
  async function previewCall(
    spec: AgentSpec,
    id: string,
    tool: string,
    rawArgs: string,
  ): Promise<{ ok: true; preview?: string } | { ok: false; error: string }> {
    try {
      const prepared = await acts.previewTool.executeWithOptions({ ...hookOptions, summary: `preview ${tool}` }, [
        { agent: spec.name, turnId: state.turnId, workflowId, toolCallId: id, tool, rawArgs },
      ]);
      if (prepared.ok) return prepared;
      const error = `Error: ${prepared.error}`;
      record({ type: 'TOOL_FAILED', toolCallId: id, tool, args: argsForDisplay(rawArgs), error: prepared.error });
      return { ok: false, error };
    } catch (err) {
      if (isCancellation(err)) throw err;
      return { ok: true, preview: `(preview unavailable: ${describeFailure(err)})` };
    }
  }

  /**
   * The agent's approval hook decides: `undefined` = proceed, else the refusal text; on Ask a human
   * decides through `askHuman`. A hook that throws (or never answers) denies: fail closed.
   */
  async function consultApprovalHook(
    spec: AgentSpec,
    id: string,
    tool: string,
    args: unknown,
    askHuman: () => Promise<string | undefined>,
  ): Promise<string | undefined> {
    let outcome;
    try {
      const response = await acts.approveTool.executeWithOptions({ ...hookOptions, summary: `approve ${tool}` }, [
        { agent: spec.name, turnId: state.turnId, workflowId, toolCallId: id, tool, args },
      ]);
      recordHookFailures(response.hookFailures, id);
      outcome = response.outcome;
    } catch (err) {
      if (isCancellation(err)) throw err;
      recordHookFailures([{ hook: 'approveTool', error: describeFailure(err) }], id);
      outcome = { action: 'deny' } as const;
    }
    if (outcome.action === 'proceed') {
      const decision: RecordedDecision = { id, approved: true, scope: 'once', at: now(), via: 'hook' };
      record({ type: 'TOOL_APPROVED', toolCallId: id, tool, args, decision });
      return undefined;
    }
    if (outcome.action === 'ask') return askHuman();
    const decision: RecordedDecision = {
      id,
      approved: false,
      scope: 'once',
      at: now(),
      via: 'hook',
      ...(outcome.reason !== undefined && { reason: outcome.reason }),
    };
    const result = deniedResult(outcome.reason);
    record({
      type: 'TOOL_DENIED',
      toolCallId: id,
      tool,
      args,
      result,
      decision,
      ...(outcome.reason !== undefined && { reason: outcome.reason }),
    });
    return result;
  }

  async function runLoop(): Promise<string> {
    let started;
    try {
      started = await acts.startTurn.executeWithOptions(
        {
          ...hookOptions,
          summary: `start ${input.agent}`,
          retry: { ...hookOptions.retry, nonRetryableErrorTypes: ['UnknownAgent'] },
        },
        [
          {
            agent: input.agent,
            input: input.input,
            turnId: state.turnId,
            ...(input.sessionId !== undefined && { sessionId: input.sessionId }),
            ...(input.inherit !== undefined && { inherit: input.inherit }),
          },
        ],
      );
    } catch (err) {
      if (isCancellation(err)) throw err;
      fail(`could not start agent ${input.agent}: ${describeFailure(err)}`);
    }
    const agentSpec = started.spec;
    spec = agentSpec;
    visibility = new Visibility(state, agentSpec.searchAttributes, input.parent?.turnId);
    record({
      type: 'AGENT_STARTED',
      agent: agentSpec.name,
      input: input.input,
      model: agentSpec.model,
      tools: agentSpec.tools.map((t) => t.name),
    });
    recordHookFailures(started.hookFailures);

    const messages: ChatMessage[] = [
      ...(agentSpec.instructions ? [{ role: 'system' as const, content: agentSpec.instructions }] : []),
      ...(input.history ?? []),
      { role: 'user', content: input.input },
    ];
    // The model activity reads the conversation with this query, so history records each message once
    // (in the result that produced it), not the whole transcript per call. See src/core/conversation.ts.
    setHandler(conversationQuery, (req) => ({ messages: messages.slice(0, req?.count), tools: agentSpec.tools }), {
      description: CONVERSATION_DESCRIPTION,
    });
    const conversation = new ConversationDigest(messages);
    const byReference = patched(PATCH_CONVERSATION_BY_REFERENCE);
    for (let call = 1; ; call++) {
      let response;
      try {
        const common = { model: agentSpec.model, stream: agentSpec.stream, turnId: state.turnId, call };
        response = await acts.callModel.executeWithOptions({ ...modelOptions, summary: `model call ${call}` }, [
          byReference
            ? { ...common, conversation: conversation.ref() }
            : { ...common, messages, tools: agentSpec.tools },
        ]);
      } catch (err) {
        if (isCancellation(err)) throw err;
        fail(`model call ${call} failed: ${describeFailure(err)}`);
      }
      const toolCalls = response.message.tool_calls ?? [];
      // Some OpenAI-compatible servers reuse tool call ids across responses; state and approvals need
      // unique ones. The model still gets its own id back in the tool message.
      const recordIds = toolCalls.map((t) => uniqueId(t.id));
      record({
        type: 'MODEL_CALLED',
        call,
        usage: response.usage,
        durationMs: response.durationMs,
        toolCalls: toolCalls.map((t, i) => ({
          id: recordIds[i]!,
          name: t.function.name,
          args: displayArgs(t.function.arguments, agentSpec),
        })),
        ...(response.finishReason !== undefined && { finishReason: response.finishReason }),
        text: response.message.content,
      });
      messages.push(response.message);
      if (toolCalls.length === 0) return response.message.content ?? '';
      const budget = tokenBudget(agentSpec);
      if (budget !== undefined && state.usage.totalTokens > budget) {
        fail(
          `token budget exceeded: ${state.usage.totalTokens} tokens used of ${budget}; the model still asked for tools (${toolCalls.map((t) => t.function.name).join(', ')})`,
        );
      }
      if (call >= agentSpec.maxModelCalls) {
        fail(
          `maxModelCalls (${agentSpec.maxModelCalls}) reached: the model still asked for tools (${toolCalls.map((t) => t.function.name).join(', ')}) after ${call} calls`,
        );
      }
      // Calls from one response run concurrently; their results go back in the model's order.
      const results = await Promise.all(
        toolCalls.map((t, i) => processToolCall(agentSpec, recordIds[i]!, t.function.name, t.function.arguments)),
      );
      toolCalls.forEach((t, i) => messages.push({ role: 'tool', tool_call_id: t.id, content: results[i] ?? '' }));
    }
  }

  const result = (status: TurnResult['status']): TurnResult => ({
    output: state.output ?? '',
    usage: state.usage,
    toolCalls: state.toolCalls,
    status,
    trust: state.trust,
    ...(state.error !== undefined && { error: state.error }),
  });

  try {
    const output = await runLoop();
    record({ type: 'TURN_COMPLETED', output });
    await condition(allHandlersFinished);
    return result('completed');
  } catch (err) {
    if (isCancellation(err)) {
      record({ type: 'TURN_CANCELLED' });
      throw err;
    }
    if (!(err instanceof TurnFailed)) throw err;
    record({ type: 'TURN_FAILED', error: err.message });
    await condition(allHandlersFinished);
    throw ApplicationFailure.create({
      type: 'TurnFailed',
      message: err.message,
      nonRetryable: true,
      details: [result('failed')],
    });
  }
}

export type { TurnState };
