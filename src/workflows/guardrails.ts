/**
 * The agent's guardrails in a turn: input guardrails before the first model call (`blocking`) or beside
 * it (`parallel`: the call's response is used only once they passed), output guardrails on the final
 * answer. Each runs as an activity and is recorded (`GUARDRAIL_RAN`); a tripwire — or a guardrail that
 * still fails after its retries (fail closed) — ends the turn `GuardrailTripped`. An agent without
 * guardrails costs nothing here: no promise, no patch.
 */
import { isCancellation, type ActivityOptions } from '@temporalio/workflow';
import { describeFailure, FailureType } from '../core/failures';
import type { TurnInput } from '../core/schemas';
import type { AgentSpec, GuardrailSpec } from '../core/spec';
import { acts } from './activities';
import { TurnFailureError } from './model-call';
import { PATCH_GUARDRAILS } from './patches';
import type { TurnRecorder } from './recorder';

const guardrailOptions = (g: GuardrailSpec): ActivityOptions => ({
  startToCloseTimeout: g.timeout ?? '30 seconds',
  retry: { initialInterval: '1 second', maximumAttempts: 3, nonRetryableErrorTypes: ['InvalidGuardrailVerdict'] },
});

export class TurnGuardrails {
  private parallel: Promise<void> | undefined;

  constructor(
    private readonly recorder: TurnRecorder,
    private readonly input: TurnInput,
  ) {}

  /** Starts the input guardrails: resolves once the blocking ones passed; the parallel ones go on. */
  startInput(agent: AgentSpec): Promise<void> | undefined {
    const all = agent.guardrails?.input ?? [];
    if (all.length === 0 || !this.recorder.version.has(PATCH_GUARDRAILS)) return undefined;
    const parallel = all.filter((g) => g.mode === 'parallel');
    if (parallel.length) {
      this.parallel = this.runAll(agent, parallel, 'input');
      // Seen by `beside`; until then a trip must not be an unhandled rejection (it fails the workflow task).
      this.parallel.catch(() => undefined);
    }
    const blocking = all.filter((g) => g.mode !== 'parallel');
    return blocking.length ? this.runAll(agent, blocking, 'input') : undefined;
  }

  /** The first model call's response, once the parallel input guardrails passed too (a trip wins at once). */
  beside<T>(response: Promise<T>): Promise<T> {
    const parallel = this.parallel;
    if (!parallel) return response;
    this.parallel = undefined;
    return Promise.all([response, parallel]).then(([r]) => r);
  }

  /** Runs the output guardrails on the answer; throws when one trips. */
  checkOutput(agent: AgentSpec, answer: { text: string; parsed?: unknown }): Promise<void> | undefined {
    const all = agent.guardrails?.output ?? [];
    if (all.length === 0 || !this.recorder.version.has(PATCH_GUARDRAILS)) return undefined;
    return this.runAll(agent, all, 'output', answer);
  }

  private runAll(
    agent: AgentSpec,
    list: readonly GuardrailSpec[],
    kind: 'input' | 'output',
    output?: { text: string; parsed?: unknown },
  ): Promise<void> {
    return Promise.all(list.map((g) => this.run(agent, g, kind, output))).then(() => undefined);
  }

  private run(
    agent: AgentSpec,
    g: GuardrailSpec,
    kind: 'input' | 'output',
    output?: { text: string; parsed?: unknown },
  ): Promise<void> {
    const { recorder, input } = this;
    const base = { type: 'GUARDRAIL_RAN' as const, name: g.name, kind };
    return acts.runGuardrail
      .executeWithOptions({ ...guardrailOptions(g), summary: `${kind} guardrail ${g.name}` }, [
        {
          agent: agent.name,
          name: g.name,
          kind,
          turnId: recorder.state.turnId,
          ...(input.sessionId !== undefined && { sessionId: input.sessionId }),
          input: input.input,
          ...(output && { output }),
        },
      ])
      .then(
        (verdict) => {
          const { info, agent: by, usage } = verdict;
          recorder.record({
            ...base,
            tripped: verdict.tripwire,
            durationMs: verdict.durationMs,
            ...(info !== undefined && { info }),
            ...(by !== undefined && { agent: by }),
            ...(usage !== undefined && { usage }),
          });
          if (verdict.tripwire) throw tripped(g.name, kind, 'its tripwire fired');
        },
        (err: unknown) => {
          if (isCancellation(err)) throw err;
          const error = describeFailure(err);
          recorder.record({ ...base, tripped: true, error });
          throw tripped(g.name, kind, `it failed, so it counts as tripped: ${error}`);
        },
      );
  }
}

function tripped(name: string, kind: 'input' | 'output', why: string): TurnFailureError {
  return new TurnFailureError(`${kind} guardrail ${name} tripped: ${why}`, FailureType.GuardrailTripped);
}
