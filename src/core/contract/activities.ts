/**
 * The activities a Tiller worker registers, as the workflows call them: the interface between
 * workflow code and worker code. `createActivities` (src/activities) implements it and the workflows
 * proxy it, so neither imports the other. Request and response shapes are recorded in history; their
 * keys never change (old histories and workers of the previous version read them).
 */
import type {
  AnswerContext,
  ApprovalPendingContext,
  ApprovalReceipt,
  ApprovalResolvedContext,
  ApproveToolResponse,
  HookFailure,
  ModelRequest,
  ModelResponse,
  PreviewRequest,
  PreviewResponse,
  RunToolRequest,
  RunToolResponse,
  StartTurnRequest,
  StartTurnResponse,
  ToolCallContext,
  GuardrailRequest,
  GuardrailResponse,
  HandoffRequest,
  HandoffResponse,
  SummaryRequest,
  SummaryResponse,
  ValidateArgsRequest,
  ValidateArgsResponse,
} from '../spec';

/** The activities Tiller's workflows call, as the worker registers them (`createActivities`). */
export interface TillerActivities {
  /** Resolves the agent into the `AgentSpec` the turn runs on, and fires `onAgentStart`. */
  startTurn(req: StartTurnRequest): Promise<StartTurnResponse>;
  /** One Chat Completions call. */
  callModel(req: ModelRequest): Promise<ModelResponse>;
  /** Checks an approver's edited arguments against the tool's schema. */
  validateToolArgs(req: ValidateArgsRequest): Promise<ValidateArgsResponse>;
  /** Validates a gated call's arguments and renders its preview for the approver. */
  previewTool(req: PreviewRequest): Promise<PreviewResponse>;
  /** The agent's `approveTool` hooks decide a call: proceed, deny, or ask a human. */
  approveTool(call: ToolCallContext): Promise<ApproveToolResponse>;
  /** The agent's `approveAnswer` hooks decide the final answer: proceed, deny (the model revises), or ask a human. */
  approveAnswer(answer: AnswerContext): Promise<ApproveToolResponse>;
  /**
   * Fires `onApprovalPending` (on the request, each reminder and escalation). `receipts`:
   * what hooks that also have `onApprovalResolved` returned.
   */
  notifyApprovalPending(
    ctx: ApprovalPendingContext,
  ): Promise<{ hookFailures: HookFailure[]; receipts?: ApprovalReceipt[] }>;
  /** Fires `onApprovalResolved`: a call that waited for a human was approved, denied or expired. */
  notifyApprovalResolved(ctx: ApprovalResolvedContext): Promise<{ hookFailures: HookFailure[] }>;
  /** Runs a tool with `onToolStart` / `onToolEnd` around it; a tool's own failure is a result. */
  runTool(req: RunToolRequest): Promise<RunToolResponse>;
  /** Runs one of the agent's guardrails on the turn's input or answer. */
  runGuardrail(req: GuardrailRequest): Promise<GuardrailResponse>;
  /** Resolves the agent a handoff gives the turn to, fires `onHandoff` and applies the handoff's input filter. */
  handOff(req: HandoffRequest): Promise<HandoffResponse>;
  /** A model call that summarises the oldest part of a conversation (the context window's `summarize`). */
  summarizeConversation(req: SummaryRequest): Promise<SummaryResponse>;
}
