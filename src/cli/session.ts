/** Session commands: `send` (the next input of a conversation, followed live) and `session` (its state). */
import type { TemporalSettings } from '../client/connect';
import { DecisionRejectedError } from '../client';
import { CliError, EXIT } from './errors';
import { followTurn } from './follow';
import { connectTiller, requireWorker } from './temporal';

const out = (line = '') => process.stdout.write(`${line}\n`);

export async function sendCommand(
  settings: TemporalSettings,
  sessionId: string,
  input: string,
  opts: { agent: string; inlineTurns?: boolean; json?: boolean; as: string },
): Promise<number> {
  const tiller = await connectTiller(settings);
  try {
    await requireWorker(tiller, settings.taskQueue, 3_000);
    let turnId: string;
    try {
      ({ turnId } = await tiller.send(sessionId, input, {
        agent: opts.agent,
        ...(opts.inlineTurns && { inlineTurns: true }),
      }));
    } catch (e) {
      if (e instanceof DecisionRejectedError) throw new CliError(`rejected: ${e.message}`, EXIT.rejected);
      throw e;
    }
    (opts.json ? process.stderr : process.stdout).write(`session ${sessionId} · turn ${turnId}\n`);
    return await followTurn({
      tiller,
      settings,
      turnId,
      json: !!opts.json,
      interactive: !!process.stdin.isTTY && !!process.stdout.isTTY,
      keepFollowing: false,
      approver: opts.as,
    });
  } finally {
    await tiller.close().catch(() => undefined);
  }
}

export async function sessionCommand(settings: TemporalSettings, sessionId: string, opts: { json?: boolean }) {
  const tiller = await connectTiller(settings);
  try {
    await requireWorker(tiller, settings.taskQueue);
    const s = await tiller.sessionState(sessionId);
    if (opts.json) {
      out(JSON.stringify(s, null, 2));
      return EXIT.ok;
    }
    out(
      `session ${s.sessionId} · agent ${s.agent} · ${s.status} · ${s.turns.length} turns · continued as new ${s.runs}×`,
    );
    out(`usage: ${s.usage.modelCalls} model calls · ${s.usage.inputTokens} in + ${s.usage.outputTokens} out tokens`);
    out(
      `trust: ${s.trust.map((t) => `${t.tool} (${t.scope}${t.approver ? `, by ${t.approver}` : ''})`).join(', ') || 'none'}`,
    );
    for (const t of s.turns) out(`  ${t.turnId} · ${t.status} · ${t.input.slice(0, 60)}`);
    for (const p of s.currentTurn?.pendingApprovals ?? []) {
      out(`⏸ ${s.currentTurn!.turnId}: ${p.tool} ${JSON.stringify(p.args)} waits (id ${p.id})`);
    }
    return EXIT.ok;
  } finally {
    await tiller.close().catch(() => undefined);
  }
}
