/**
 * `startTurn`: resolves an agent by name into the plain `AgentSpec` the workflow runs on (recorded in
 * history, so replay never depends on the worker's current configuration) and fires `onAgentStart`.
 */
import { ApplicationFailure } from '@temporalio/activity';
import { FailureType } from '../core/failures';
import type { StartTurnRequest, StartTurnResponse } from '../core/spec';
import { inheritPolicy } from '../core/subagents';
import { runHooks } from './hooks';
import { resolvedSpec, specOf, type AgentActivityDeps } from './agent-spec';

export function createAgentActivities(deps: AgentActivityDeps) {
  return {
    async startTurn(req: StartTurnRequest): Promise<StartTurnResponse> {
      const def = deps.agents.get(req.agent);
      if (!def) {
        throw ApplicationFailure.create({
          type: FailureType.UnknownAgent,
          message: `unknown agent "${req.agent}"; this worker serves: ${[...deps.agents.keys()].join(', ') || '(none)'}`,
          nonRetryable: true,
        });
      }
      // A sub-agent with `inherit: true` also runs under its parents' gates and hooks.
      const ancestors = (req.inherit ?? []).map((name) => {
        const ancestor = deps.agents.get(name);
        if (!ancestor) throw new Error(`agent ${def.name} inherits from ${name}, which is not registered`);
        return ancestor;
      });
      const own = await resolvedSpec(def, req, deps);
      const spec = inheritPolicy(own, await Promise.all(ancestors.map((a) => specOf(a, deps))));
      const hooks = [...new Set([def, ...ancestors].flatMap((a) => deps.hooksFor(a.name)))];
      const hookFailures = await runHooks(hooks, 'onAgentStart', {
        agent: def.name,
        input: req.input,
        turnId: req.turnId,
        ...(req.sessionId !== undefined && { sessionId: req.sessionId }),
      });
      return { spec, hookFailures };
    },
  };
}
