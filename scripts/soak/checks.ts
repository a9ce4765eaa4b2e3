/**
 * The soak's verdict, from independent records: the ledger (what the side-effect tool actually did),
 * each scenario's design (status, model calls, tool outcome, effects) and what each client was told
 * about its decision — compared with the turns' final results. Pure: no I/O.
 */
import type { ToolCallStatus } from '../../src/core/schemas';
import { TOKENS_PER_CALL } from './agents';
import type { LedgerEffect } from './ledger';
import type { DeciderName } from './scenarios';
import type { TurnRecord } from './turns';

export interface DecisionTally {
  sent: number;
  acknowledged: number;
  /** Reflected in the turn's final state (the call's recorded decision, by this client's approver). */
  applied: number;
  refused: number;
  /** Still failing transiently at the turn's deadline. */
  gaveUp: number;
}

export interface Verdict {
  turns: { started: number; completed: number; failedAsDesigned: number; byKind: Record<string, number> };
  turnsLost: number;
  effectsDuplicated: number;
  effectsMissing: number;
  decisionsLost: number;
  usageMismatches: number;
  /** Refused to its client, yet applied: an acknowledgement a fault lost, then a retry told "not pending". */
  decisionsAppliedUnacknowledged: number;
  decisions: Partial<Record<DeciderName, DecisionTally>>;
  effects: { applied: number; attempts: number };
  /** What went wrong, one line each (the first 50). */
  problems: string[];
}

/** The tool call's designed end: a race's is whichever decision was acknowledged. */
function expectedTool(r: TurnRecord): { status: ToolCallStatus; effects: number } {
  const { expect, kind } = r.scenario;
  if (kind !== 'race') return { status: expect.toolStatus, effects: expect.effects };
  const won = r.decisions.find((d) => d.outcome === 'acknowledged');
  return won?.approved === false ? { status: 'denied', effects: 0 } : { status: 'succeeded', effects: 1 };
}

export function judge(records: readonly TurnRecord[], effects: readonly LedgerEffect[], attempts: number): Verdict {
  const problems: string[] = [];
  const problem = (line: string) => problems.length < 50 && problems.push(line);
  const v: Verdict = {
    turns: { started: records.length, completed: 0, failedAsDesigned: 0, byKind: {} },
    turnsLost: 0,
    effectsDuplicated: 0,
    effectsMissing: 0,
    decisionsLost: 0,
    usageMismatches: 0,
    decisionsAppliedUnacknowledged: 0,
    decisions: {},
    effects: { applied: effects.length, attempts },
    problems,
  };

  const byEffect = new Map<string, number>();
  for (const e of effects) byEffect.set(e.effect, (byEffect.get(e.effect) ?? 0) + 1);
  for (const [effect, n] of byEffect) {
    if (n > 1) {
      v.effectsDuplicated += n - 1;
      problem(`effect ${effect} applied ${n} times`);
    }
  }

  for (const r of records) {
    const { scenario: sc, result } = r;
    v.turns.byKind[sc.kind] = (v.turns.byKind[sc.kind] ?? 0) + 1;
    const want = expectedTool(r);
    const call = result?.toolCalls.find((c) => c.name === sc.expect.tool);
    if (!result) {
      v.turnsLost++;
      problem(`${sc.id} (${sc.kind}): no result: ${r.error ?? 'unknown'}`);
    } else if (result.status !== sc.expect.status || call?.status !== want.status) {
      v.turnsLost++;
      const why = [result.error, call?.error].filter(Boolean).join('; ').slice(0, 300);
      problem(
        `${sc.id} (${sc.kind}): ${result.status}/${call?.status} instead of ${sc.expect.status}/${want.status}${why ? ` (${why})` : ''}`,
      );
    } else if (result.status === 'completed') v.turns.completed++;
    else v.turns.failedAsDesigned++;

    if (result) {
      const calls = sc.expect.modelCalls;
      const u = result.usage;
      if (
        u.modelCalls !== calls ||
        u.inputTokens !== calls * TOKENS_PER_CALL.prompt_tokens ||
        u.outputTokens !== calls * TOKENS_PER_CALL.completion_tokens
      ) {
        v.usageMismatches++;
        problem(`${sc.id}: usage ${JSON.stringify(u)}, designed ${calls} calls × ${JSON.stringify(TOKENS_PER_CALL)}`);
      }
    }

    const applied = [...byEffect].filter(([effect]) => effect.startsWith(`${sc.id}#`)).length;
    if (applied < want.effects) {
      v.effectsMissing += want.effects - applied;
      problem(`${sc.id}: ${applied} of ${want.effects} effects in the ledger`);
    } else if (applied > want.effects) {
      v.effectsDuplicated += applied - want.effects;
      problem(`${sc.id}: ${applied} effects in the ledger, designed ${want.effects}`);
    }

    for (const d of r.decisions) {
      const tally = (v.decisions[d.client] ??= { sent: 0, acknowledged: 0, applied: 0, refused: 0, gaveUp: 0 });
      tally.sent++;
      const recorded = result?.toolCalls.find((c) => c.id === d.callId)?.decision;
      const reflected =
        recorded !== undefined &&
        recorded.approved === d.approved &&
        (d.approver === undefined || recorded.approver === d.approver);
      if (reflected) tally.applied++;
      if (d.outcome === 'acknowledged') {
        tally.acknowledged++;
        if (!reflected) {
          v.decisionsLost++;
          problem(
            `${sc.id}: ${d.client} was told its decision (${d.approved}) was taken; final ${JSON.stringify(recorded)}`,
          );
        }
      } else if (d.outcome === 'refused') {
        tally.refused++;
        if (reflected) v.decisionsAppliedUnacknowledged++;
        // Sent before the call waited, it must be held until it does (issue 34): a refusal loses it.
        else if (sc.kind === 'instant') {
          v.decisionsLost++;
          problem(`${sc.id}: ${d.client}'s early decision was refused: ${d.message ?? ''}`);
        }
      } else {
        tally.gaveUp++;
        problem(`${sc.id}: ${d.client} gave up after ${d.attempts} attempts: ${d.message ?? ''}`);
      }
    }
  }
  return v;
}
