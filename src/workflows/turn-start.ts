/** How a turn starts: its input checked, and its agent resolved by the `startTurn` activity and recorded. */
import { ApplicationFailure, isCancellation } from '@temporalio/workflow';
import { describeFailure, FailureType, refusedPayload } from '../core/failures';
import { formatZodError, TurnInput } from '../core/schemas';
import type { AgentSpec } from '../core/spec';
import { acts, localActs, localStartOptions, startOptions } from './activities';
import { TurnFailureError } from './model-call';
import type { TurnRecorder } from './recorder';

/** Resolves the agent (an activity: agents live in the worker); `started(spec)` runs before AGENT_STARTED is recorded. */
export async function startAgent(
  input: TurnInput,
  recorder: TurnRecorder,
  started: (spec: AgentSpec) => void,
): Promise<AgentSpec> {
  let response;
  try {
    const request = {
      agent: input.agent,
      input: input.input,
      turnId: recorder.state.turnId,
      ...(input.sessionId !== undefined && { sessionId: input.sessionId }),
      ...(input.inherit !== undefined && { inherit: input.inherit }),
    };
    const summary = `start ${input.agent}`;
    // A lean run starts in a local activity: one marker where an activity costs three events and a task.
    // What it records next reads the turn's clock: replay-stable after a local activity (../clock.ts).
    response = await (recorder.version.lean
      ? recorder.clock.local(() => localActs.startTurn.executeWithOptions({ ...localStartOptions, summary }, [request]))
      : acts.startTurn.executeWithOptions({ ...startOptions, summary }, [request]));
  } catch (err) {
    if (isCancellation(err)) throw err;
    throw new TurnFailureError(`could not start agent ${input.agent}: ${describeFailure(err)}`);
  }
  const { spec } = response;
  started(spec);
  recorder.record({
    type: 'AGENT_STARTED',
    agent: spec.name,
    input: input.input,
    model: spec.model,
    tools: spec.tools.map((t) => t.name),
    ...(spec.modelSettings && { modelSettings: spec.modelSettings }),
  });
  recorder.hookFailures(response.hookFailures);
  return spec;
}

export function parseInput(raw: TurnInput): TurnInput {
  const parsed = TurnInput.safeParse(raw);
  if (parsed.success) return parsed.data;
  throw ApplicationFailure.create({
    type: FailureType.InvalidTurnInput,
    message: `invalid agentTurn input: ${refusedPayload(raw) ?? formatZodError(parsed.error)}`,
    nonRetryable: true,
  });
}
