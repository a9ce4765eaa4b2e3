/** Runs one hostile-model case: a fresh turn whose first model answer is the case, then the invariants. */
import { agentFor } from './agents';
import { cleanUp, resetFiles, type FuzzEnv } from './env';
import { cancelViolations, checkTurn } from './invariants';
import type { ModelCase } from './model-cases';
import { snapshotPrototypes, takePollution } from './pollution';
import { turnInput } from './router';
import { tracer } from './trace';
import type { CaseOutcome } from './tally';
import { errorText } from './turn-probe';

export async function runModelCase(env: FuzzEnv, c: ModelCase): Promise<CaseOutcome> {
  const turnId = env.h.turnId(`fuzz-model-${c.cls}`);
  resetFiles(env);
  env.router.route(turnId, [c.step]);
  const prototypes = snapshotPrototypes();
  const started = Date.now();
  try {
    await env.h.tiller.startTurn({ agent: agentFor(c.stream), input: turnInput(turnId), turnId });
  } catch (err) {
    await cleanUp(env, turnId);
    return {
      label: c.label,
      end: 'not started',
      ms: Date.now() - started,
      violations: [`I1 could not start: ${errorText(err)}`],
    };
  }
  try {
    const check = await checkTurn(env.h.client, turnId, {
      reader: env.reader,
      sentinel: env.sentinel,
      approved: new Set(),
      amplification: true,
    });
    const violations = [...check.violations];
    if (check.settled.kind === 'awaiting') violations.push(...(await cancelViolations(env.h.client, turnId)));
    violations.push(...takePollution(prototypes).map((p) => `I6 the worker's process was polluted: ${p}`));
    await cleanUp(env, turnId);
    violations.push(...(await env.worker.canary()));
    tracer(turnId)('cancel, pollution and canary checked');
    return {
      label: `${c.stream ? 'stream' : 'unary'}: ${c.label}`,
      end: check.settled.kind === 'closed' ? check.settled.status.toLowerCase() : check.settled.kind,
      ms: Date.now() - started,
      ...(check.answer.ok && { stateBytes: check.answer.bytes }),
      ...(check.history && { historyBytes: check.history.bytes }),
      violations,
    };
  } finally {
    await cleanUp(env, turnId);
  }
}
