/**
 * The end of a turn's model loop: the model answered without tool calls. With structured output the
 * answer must match the agent's schema (an invalid one goes back to the model, a bounded number of
 * times); with an answer gate a hook or a human approves it, or says why not and the model revises it.
 * Both behind their patches: turns that started before run as they did.
 */
import { isCancellation } from '@temporalio/workflow';
import { describeFailure, FailureType } from '../core/failures';
import { deniedResult } from '../core/policy';
import { ANSWER_TOOL, type AgentSpec, type ApprovalOutcome } from '../core/spec';
import { acts, hookOptions } from './activities';
import type { ApprovalDesk } from './desk/approvals';
import { TurnFailureError, type ModelStep } from './model-call';
import { PATCH_ANSWER_GATE, PATCH_STRUCTURED_OUTPUT } from './patches';
import type { TurnRecorder } from './recorder';

/** A turn's answer: its text, and with structured output the parsed value. */
export interface Answer {
  text: string;
  parsed?: unknown;
}

export interface AnswerScope {
  agent: AgentSpec;
  recorder: TurnRecorder;
  desk: ApprovalDesk;
  workflowId: string;
}

/**
 * What follows an answer: it is final; or it goes back to the model with `message` — denied at the
 * gate, or the `attempts`-th answer that did not match the schema (past the agent's retries the turn
 * fails with `InvalidOutput`).
 */
export type AnswerNext =
  | { type: 'final'; answer: Answer }
  | { type: 'denied'; message: string; limitReason: string }
  | { type: 'invalid'; attempts: number; message: string; limitReason?: undefined };

export async function settleAnswer(
  scope: AnswerScope,
  step: ModelStep,
  call: number,
  invalidSoFar: number,
): Promise<AnswerNext> {
  const { agent, recorder } = scope;
  const text = step.message.content ?? '';
  const check = step.output;
  let answer: Answer | undefined;
  if (!agent.output || !check || !recorder.version.has(PATCH_STRUCTURED_OUTPUT)) answer = { text };
  else if (check.ok) answer = { text, parsed: check.value };
  if (answer) {
    if (!(agent.answerGate || agent.hooks.approveAnswer) || !recorder.version.has(PATCH_ANSWER_GATE))
      return { type: 'final', answer };
    const gated = await gateAnswer(scope, call, answer);
    if (gated.type === 'approved') return { type: 'final', answer: gated.answer };
    return {
      type: 'denied',
      message: `Your answer was not approved: ${gated.reason}\nRevise your answer accordingly.`,
      limitReason: 'the answer was not approved',
    };
  }
  const error = check && !check.ok ? check.error : '';
  const attempts = invalidSoFar + 1;
  recorder.record({ type: 'OUTPUT_INVALID', call, attempt: attempts, error });
  if (attempts > (agent.output?.maxRetries ?? 0))
    throw new TurnFailureError(
      `InvalidOutput: the answer did not match the output schema after ${attempts} attempts: ${error}`,
      FailureType.InvalidOutput,
    );
  return {
    type: 'invalid',
    attempts,
    message: `Your answer does not match the required output schema: ${error}\nAnswer again with only JSON that matches the schema.`,
  };
}

/**
 * Waits at the desk for a human to approve the answer (the pseudo-tool `final_answer`, arguments
 * `{ text }`); an approver may edit the text of an answer without `output`. An expired gate fails the turn.
 */
async function gateAnswer(
  { agent, recorder, desk, workflowId }: AnswerScope,
  call: number,
  answer: Answer,
): Promise<{ type: 'approved'; answer: Answer } | { type: 'denied'; reason: string }> {
  const state = recorder.state;
  const id = `answer-${call}`;
  const args = { text: answer.text };
  const context = {
    agent: agent.name,
    turnId: state.turnId,
    workflowId,
    toolCallId: id,
    tool: ANSWER_TOOL,
    ...(agent.inherits && { inheritsFrom: agent.inherits }),
  };
  const done = (approved: Answer) => {
    recorder.record({ type: 'TOOL_STARTED', toolCallId: id, tool: ANSWER_TOOL, args: { text: approved.text } });
    recorder.record({ type: 'TOOL_ENDED', toolCallId: id, tool: ANSWER_TOOL, durationMs: 0, result: approved.text });
    return { type: 'approved' as const, answer: approved };
  };
  // The agent's approveAnswer hooks first: proceed, deny (the model revises) or ask a human. While
  // they run the answer is preparing at the desk: a decision for it is held until it waits, or refused
  // if the hooks settle it (the mark comes off when the wait is raised, or here; no added await).
  if (agent.hooks.approveAnswer) {
    desk.prepare(id);
    let outcome: ApprovalOutcome;
    try {
      const response = await acts.approveAnswer.executeWithOptions(
        { ...hookOptions, summary: `approve answer ${call}` },
        [
          {
            agent: agent.name,
            turnId: state.turnId,
            workflowId,
            answerId: id,
            text: answer.text,
            ...(answer.parsed !== undefined && { parsed: answer.parsed }),
            ...(agent.inherits && { inheritsFrom: agent.inherits }),
          },
        ],
      );
      recorder.hookFailures(response.hookFailures, id);
      outcome = response.outcome;
    } catch (err) {
      if (isCancellation(err)) {
        desk.unprepare(id);
        throw err;
      }
      recorder.hookFailures([{ hook: 'approveAnswer', error: describeFailure(err) }], id);
      outcome = { action: 'deny', reason: 'the answer could not be checked; answer again' };
    }
    if (outcome.action !== 'ask') {
      desk.unprepare(id);
      const reason = outcome.action === 'deny' ? deniedResult(outcome.reason) : undefined;
      const decision = {
        id,
        approved: outcome.action === 'proceed',
        scope: 'once' as const,
        at: recorder.now(),
        via: 'hook' as const,
        ...(reason !== undefined && { reason }),
      };
      if (reason === undefined) {
        recorder.record({ type: 'TOOL_APPROVED', toolCallId: id, tool: ANSWER_TOOL, args, decision });
        return done(answer);
      }
      recorder.record({
        type: 'TOOL_DENIED',
        toolCallId: id,
        tool: ANSWER_TOOL,
        args,
        result: reason,
        decision,
        reason,
      });
      return { type: 'denied', reason };
    }
  }
  const outcome = await desk.wait({ ...context, args }, agent.answerGate ?? {}, answer.text);
  if (outcome.type === 'refused') {
    if (state.toolCalls.find((c) => c.id === id)?.status === 'timed_out')
      throw new TurnFailureError(`the answer was not approved: ${outcome.result}`);
    return { type: 'denied', reason: outcome.result };
  }
  const edited = (outcome.decision.args as { text?: unknown } | undefined)?.text;
  return done(typeof edited === 'string' && !agent.output ? { text: edited } : answer);
}
