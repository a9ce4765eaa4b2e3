/**
 * How the turn calls its activities: one options object per kind of call (timeouts, heartbeats,
 * retries), and the proxies. Retries are Temporal's; each activity decides what is worth retrying.
 */
import {
  proxyActivities,
  proxyLocalActivities,
  type ActivityOptions,
  type LocalActivityOptions,
} from '@temporalio/workflow';
import type { TillerActivities } from '../core/contract';
import { FailureType, MODEL_ERRORS_NOT_RETRIED } from '../core/failures';
import { DEFAULT_MODEL_BUDGET, MODEL_ATTEMPT_TIMEOUT, MODEL_HEARTBEAT_TIMEOUT_MS } from '../core/model-retry';
import type { ModelRetrySpec, RunToolRequest, RunToolResponse, ToolSpec } from '../core/spec';
import { PATCH_READ_ONLY_LOCAL } from './patches';
import type { RunVersion } from './versions';

export const modelOptions: ActivityOptions = {
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '20 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '30 seconds',
    maximumAttempts: 6,
    nonRetryableErrorTypes: [...MODEL_ERRORS_NOT_RETRIED],
  },
};

/**
 * A model call (`callModel`): bounded by time, not by count — retried with backoff until its budget
 * (schedule-to-close) is spent; each attempt heartbeats only while its stream moves (or while it waits
 * for the first chunk, up to `firstToken`), so a stalled server fails the attempt in 30 s. Only the
 * options differ from `modelOptions` (the summary's, still by count): replay matches an activity by
 * its type and id, never its options, so turns recorded before keep replaying.
 */
export function modelCallOptions(retry: ModelRetrySpec | undefined): ActivityOptions {
  return {
    scheduleToCloseTimeout: retry?.budget ?? DEFAULT_MODEL_BUDGET,
    startToCloseTimeout: MODEL_ATTEMPT_TIMEOUT,
    heartbeatTimeout: MODEL_HEARTBEAT_TIMEOUT_MS,
    retry: {
      initialInterval: '1 second',
      backoffCoefficient: 2,
      maximumInterval: '30 seconds',
      // Unlimited (merged over the proxy's defaults, so said explicitly): the budget ends the retries.
      maximumAttempts: Number.POSITIVE_INFINITY,
      nonRetryableErrorTypes: [...MODEL_ERRORS_NOT_RETRIED],
    },
  };
}

/** Hooks, previews, validation: short, retried a few times. */
export const hookOptions: ActivityOptions = {
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumAttempts: 3 },
};

/** `startTurn`: like a hook, but an unknown agent is final. */
export const startOptions: ActivityOptions = {
  ...hookOptions,
  retry: { ...hookOptions.retry, nonRetryableErrorTypes: [FailureType.UnknownAgent] },
};

/**
 * `startTurn` and `previewTool` in a lean run (./versions.ts): local activities, each one marker in
 * history where an activity costs three events and a workflow task. Both are quick and read only the
 * worker's own agents and tools; the timeouts and retries are the activities'.
 */
export const localHookOptions: LocalActivityOptions = { startToCloseTimeout: '1 minute', retry: hookOptions.retry! };
export const localStartOptions: LocalActivityOptions = { ...localHookOptions, retry: startOptions.retry! };

// A tool that throws is folded into its result inside the activity, so retries here only cover a
// worker that died or timed out mid-call; tools get the idempotency key for exactly that case.
const toolOptions: ActivityOptions = {
  startToCloseTimeout: '10 minutes',
  // runTool heartbeats while the tool runs: a worker killed mid-tool is noticed in 30 s, not 10 minutes.
  heartbeatTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumAttempts: 3 },
};

// Local tools: run in the workflow's worker, recorded as a marker (no heartbeats there; cancellation
// reaches the tool directly, and the start-to-close timeout is enforced by the worker).
const localToolOptions: LocalActivityOptions = {
  startToCloseTimeout: '1 minute',
  retry: toolOptions.retry!,
};

export const acts = proxyActivities<TillerActivities>(modelOptions);
export const localActs = proxyLocalActivities<TillerActivities>(localToolOptions);

/**
 * Whether a tool runs as a local activity: when marked `local`, or — the fast path — when it only
 * reads (`readOnly`, or an MCP tool whose server says `readOnlyHint`) and neither opts out
 * (`local: false`) nor asks for heartbeats (`heartbeatTimeout`). Turns recorded before the fast path
 * ran such tools as activities, and keep doing so on replay (the patch).
 */
export function runsLocally(tool: ToolSpec | undefined, version: RunVersion): boolean {
  if (!tool || tool.subAgent) return false;
  if (tool.local !== undefined) return tool.local;
  const readOnly = tool.readOnly === true || tool.mcp?.annotations?.readOnlyHint === true;
  return readOnly && tool.heartbeatTimeout === undefined && version.has(PATCH_READ_ONLY_LOCAL);
}

/**
 * Runs a tool as an activity, or a local activity when it runs locally (above), with the tool's own
 * timeouts over the defaults. Returns the activity's promise as is (no extra await: concurrent calls
 * keep the command order of recorded histories).
 */
export function runToolActivity(
  tool: ToolSpec | undefined,
  request: RunToolRequest,
  version: RunVersion,
): Promise<RunToolResponse> {
  const name = request.tool;
  const timeout = tool?.timeout !== undefined && { startToCloseTimeout: tool.timeout };
  if (runsLocally(tool, version)) {
    return localActs.runTool.executeWithOptions({ ...localToolOptions, ...timeout, summary: `tool ${name} (local)` }, [
      request,
    ]);
  }
  const heartbeat = tool?.heartbeatTimeout !== undefined && { heartbeatTimeout: tool.heartbeatTimeout };
  return acts.runTool.executeWithOptions({ ...toolOptions, ...timeout, ...heartbeat, summary: `tool ${name}` }, [
    request,
  ]);
}
