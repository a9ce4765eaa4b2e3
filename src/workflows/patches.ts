/**
 * Patch ids: one per change to workflow code that alters command order, checked with `patched(id)`
 * so turns started on older code replay their recorded path. Kept until no turn of that age can be
 * open; test/integration/versioning.test.ts and the replay test (test/unit/replay.test.ts) prove both paths.
 */

/** Since 0.2 every gated call's arguments are validated (an activity) before a human is asked. */
export const PATCH_VALIDATE_BEFORE_APPROVAL = 'validate-args-before-approval';

/** Since 0.3 model calls record `{count, digest}` of the conversation instead of the messages. */
export const PATCH_CONVERSATION_BY_REFERENCE = 'conversation-by-reference';

/** Since 0.3 a turn continues as new when its history grows past its budget (src/workflows/carry.ts). */
export const PATCH_TURN_CONTINUE_AS_NEW = 'turn-continue-as-new';

/**
 * An approval request's `argsDigest` is salted with the turn's first run id (a digest then confirms
 * no guess of the arguments). Waits raised before the patch keep the plain digest: a decision in
 * their history may carry it.
 */
export const PATCH_SALTED_ARGS_DIGEST = 'salted-args-digest';

/**
 * An empty approver list (a gate's or an escalation stage's) means nobody may decide; before the
 * patch it meant anyone. Waits raised before keep the old rule: a decision in their history may rely on it.
 */
export const PATCH_EMPTY_APPROVERS_MEAN_NOBODY = 'empty-approvers-mean-nobody';

/** A call that waited for a human fires the `onApprovalResolved` hooks (an activity) once it is decided or expires. */
export const PATCH_APPROVAL_RESOLVED_HOOK = 'approval-resolved-hook';

/**
 * A continued turn takes its carried waits before it sets the decision handlers, so a decision that
 * arrives with the run's first task is applied; before the patch it was refused as "not pending" (a
 * signal's refusal is in history, hence the patch).
 */
export const PATCH_CARRIED_WAITS_FIRST = 'carried-waits-first';

/** Since 0.4 read-only tools (`readOnly`, MCP `readOnlyHint`) run as local activities unless they opt out. */
export const PATCH_READ_ONLY_LOCAL = 'read-only-tools-local';

/**
 * Structured output (`defineAgent({ output })`): an answer that does not match the schema goes back to
 * the model (another model call) or fails the turn. Only agents with `output` reach the check.
 */
export const PATCH_STRUCTURED_OUTPUT = 'structured-output';

/** Answer gates (`defineAgent({ approveAnswer })`): the final answer waits at the approval desk. Only agents with a gate reach it. */
export const PATCH_ANSWER_GATE = 'answer-gate';

/**
 * A model call that ended cut (`finish_reason: length`, unless the agent accepts it), filtered
 * (`content_filter`) or refused fails the turn; before the patch its text was taken as the answer.
 * Only such a response reaches the check.
 */
export const PATCH_FINISH_REASONS = 'finish-reasons';

/**
 * Issue 24: a decision carrying the `tillerApprover` header (sent through the secured cluster, whose
 * authorizer checked it against the caller's token) is recorded as that approver, and refused when its
 * body names someone else. Only decisions with the header reach the check.
 */
export const PATCH_VERIFIED_APPROVER = 'verified-approver';

/** Handoffs (`defineAgent({ handoffs })`): a response calling a handoff tool gives the turn to another agent. */
export const PATCH_HANDOFFS = 'handoffs';

/** Guardrails (`inputGuardrails`, `outputGuardrails`): activities on the turn's input and answer. */
export const PATCH_GUARDRAILS = 'guardrails';

/** The context window (`contextWindow`): the conversation is trimmed or summarised before a model call. */
export const PATCH_CONTEXT_WINDOW = 'context-window';

/**
 * The context window's calibration (the provider's count of a recent prompt) is used only when it is
 * plausible (`usableCalibration`): one carried in from outside — a turn's or a session's input — or
 * counted by a server that reports nonsense can no longer stop all trimming or make every prompt look
 * full. Only an implausible calibration reaches the check.
 */
export const PATCH_CALIBRATION_BOUNDS = 'calibration-bounds';

/**
 * A decision that reaches a gated call while its approval hook or preview still runs (often in the
 * same workflow task as the preview's result, ahead of it) waits for the call to be pending instead of
 * being refused as "not pending"; a call that then never waits refuses it. Only such a decision
 * reaches the patch.
 */
export const PATCH_DECIDE_BEFORE_WAIT = 'decide-before-wait';

/**
 * Issue 33: on a worker that verifies approvers (`verifiedApprovers`), a decision without the
 * `tillerApprover` header is refused and recorded; before the patch its body's `approver` was believed.
 * Only a header-less decision on such a worker reaches the patch.
 */
export const PATCH_APPROVER_HEADER_REQUIRED = 'approver-header-required';

/**
 * Issue 35: the context window keeps room for the answer when `maxTokens` is unset, a trim drops to a
 * low-water mark (`LOW_WATER` of the budget) rather than just under it, and the estimate is never below
 * the count by characters' classes. Only turns of agents with a `contextWindow` reach it.
 */
export const PATCH_CONTEXT_LOW_WATER = 'context-low-water';

/**
 * Issue 35: a prompt the model server refuses as too long (`ModelContextExceeded`) is trimmed to the
 * server's count and asked once more (a `CONTEXT_TRIMMED` with `refused`). Only such a refusal reaches it.
 */
export const PATCH_CONTEXT_REFUSED_RETRY = 'context-refused-retry';

/**
 * Issue 35: a turn whose model ran out of context — the server refused the prompt, or the answer was cut
 * short of `maxTokens` — fails as `ContextExhausted`, with the prompt's and the answer's counts and
 * advice that fits; before it, `ModelTruncated` (advising a larger `maxTokens`) or `TurnFailed`.
 */
export const PATCH_CONTEXT_EXHAUSTED = 'context-exhausted';

/**
 * At most 32 calls of one model response run (was 64): their activities' completions must not reach
 * the server's 100 buffered events while a workflow task is in flight. Checked only for a response
 * of more than 32 calls, so other turns record no marker.
 */
export const PATCH_FEWER_CALLS_PER_RESPONSE = 'fewer-calls-per-response';

/**
 * Issue 36: a turn's run started on this version records this one marker at its start and takes every
 * earlier patch's path without its own marker (./versions.ts): each `patched` costs two events (the
 * marker, and the `TemporalChangeVersion` upsert core adds), and a gated turn reached four. Behind it
 * too: `startTurn` and `previewTool` run as local activities, and a session's turn tells its session
 * only when what it waits for changes.
 */
export const PATCH_LEAN_TURN = 'lean-turn';

/** The patches a lean run takes without checking (every one before PATCH_LEAN_TURN; none added after it). */
export type PatchBeforeLean =
  | typeof PATCH_VALIDATE_BEFORE_APPROVAL
  | typeof PATCH_CONVERSATION_BY_REFERENCE
  | typeof PATCH_TURN_CONTINUE_AS_NEW
  | typeof PATCH_SALTED_ARGS_DIGEST
  | typeof PATCH_EMPTY_APPROVERS_MEAN_NOBODY
  | typeof PATCH_APPROVAL_RESOLVED_HOOK
  | typeof PATCH_CARRIED_WAITS_FIRST
  | typeof PATCH_READ_ONLY_LOCAL
  | typeof PATCH_STRUCTURED_OUTPUT
  | typeof PATCH_ANSWER_GATE
  | typeof PATCH_FINISH_REASONS
  | typeof PATCH_VERIFIED_APPROVER
  | typeof PATCH_HANDOFFS
  | typeof PATCH_GUARDRAILS
  | typeof PATCH_CONTEXT_WINDOW
  | typeof PATCH_CALIBRATION_BOUNDS
  | typeof PATCH_DECIDE_BEFORE_WAIT
  | typeof PATCH_APPROVER_HEADER_REQUIRED
  | typeof PATCH_CONTEXT_LOW_WATER
  | typeof PATCH_CONTEXT_REFUSED_RETRY
  | typeof PATCH_CONTEXT_EXHAUSTED
  | typeof PATCH_FEWER_CALLS_PER_RESPONSE;

/**
 * Issue 36, approvals at cost: a run started on this version records this one marker at its start
 * instead of PATCH_LEAN_TURN's, and takes that path with two changes. A gated call of a worker tool
 * without a preview is checked by the model call that asked for it (`ModelRequest.checkArgs`), so no
 * `previewTool` runs before the human is asked (a local activity's marker, and the task a query arriving
 * with it forced). A turn started with the search attributes of a running turn (TillerClient does)
 * does not upsert them again.
 */
export const PATCH_AT_COST = 'approvals-at-cost';

/**
 * Issue 36: a run started on this version records this one marker at its start instead of
 * PATCH_AT_COST's, and takes that path with one change. An agent with a `contextWindow` retries a prompt
 * the server refused as too long from the model call's own rejection handler (`callModel`), not from an
 * async wrapper around every model call: two promises a step fewer, and the same commands.
 */
export const PATCH_WINDOW_IN_MODEL_CALL = 'window-in-model-call';

/** The markers a run records at its start for its whole version, oldest first (each takes every earlier patch's path). */
export const VERSION_MARKERS = [PATCH_LEAN_TURN, PATCH_AT_COST, PATCH_WINDOW_IN_MODEL_CALL] as const;
