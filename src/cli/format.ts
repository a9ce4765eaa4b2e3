/** Human-readable lines for events, state, decisions and pending turns. Pure: no I/O. */
import type { PendingTurn } from '../client';
import type { TurnEvent } from '../core/state/events';
import { decideHints, NOBODY_DECIDES, type DecideTarget, type HintConnection } from '../core/hints';
import type { RecordedDecision, TurnResult, Usage } from '../core/schemas';
import type { TurnState } from '../core/state';

export function compactJson(value: unknown, max = 120): string {
  let text: string;
  try {
    text = typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
  } catch {
    text = String(value);
  }
  return truncate(text, max);
}

export function truncate(text: string, max: number): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine.length > max ? `${oneLine.slice(0, max - 1)}…` : oneLine;
}

export function formatAge(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
  return `${Math.floor(s / 86_400)}d${Math.floor((s % 86_400) / 3600)}h`;
}

export function formatMs(ms: number): string {
  return `${ms < 10 ? Math.round(ms * 10) / 10 : Math.round(ms)} ms`;
}

export function formatUsage(u: Usage): string {
  const calls = `${u.modelCalls} model call${u.modelCalls === 1 ? '' : 's'}`;
  return `${calls} · ${u.inputTokens} in + ${u.outputTokens} out = ${u.totalTokens} tokens`;
}

const by = (approver?: string) => (approver ? ` by ${approver}` : '');

/** One line per event, e.g. `▸ model call 1 · 11+3 tokens · 12 ms`. */
export function formatEvent(e: TurnEvent): string {
  switch (e.type) {
    case 'AGENT_STARTED':
      return `● ${e.agent} started · model ${e.model} · tools ${e.tools.join(', ') || 'none'}`;
    case 'MODEL_CALLED': {
      const calls = e.toolCalls.length ? ` → ${e.toolCalls.map((c) => c.name).join(', ')}` : '';
      const tokens = `${e.usageEstimated ? '~' : ''}${e.usage.inputTokens}+${e.usage.outputTokens} tokens${e.usageEstimated ? ' (estimated: the server reported none)' : ''}`;
      const cut = e.finishReason === 'length' ? ' · cut at the token limit' : '';
      return `▸ model call ${e.call} · ${tokens} · ${formatMs(e.durationMs)}${cut}${calls}`;
    }
    case 'APPROVAL_REQUESTED': {
      const expires = e.expiresAt ? `, until ${e.expiresAt}` : '';
      return `⏸ ${e.tool} ${compactJson(e.args)} waits for approval (id ${e.toolCallId}${expires})`;
    }
    case 'TOOL_APPROVED':
      return `✔ ${e.tool} approved${by(e.decision.approver)} (scope ${e.decision.scope}, via ${e.decision.via})`;
    case 'TOOL_DENIED':
      return `✗ denied: ${e.reason ?? e.result} · ${e.tool}${by(e.decision?.approver)}${e.decision ? ` via ${e.decision.via}` : ''}`;
    case 'APPROVAL_TIMED_OUT':
      return `⌛ ${e.tool} approval timed out (id ${e.toolCallId})`;
    case 'TRUST_GRANTED':
      return `★ ${e.tool} trusted for the ${e.scope}${by(e.approver)}`;
    case 'TOOL_STARTED':
      return `⚙ ${e.tool} ${compactJson(e.args)} …`;
    case 'TOOL_ENDED':
      return `✓ ${e.tool} ${formatMs(e.durationMs)} → ${compactJson(e.result, 80)}`;
    case 'TOOL_FAILED':
      return `✗ ${e.tool} failed${e.durationMs !== undefined ? ` after ${formatMs(e.durationMs)}` : ''}: ${truncate(e.error, 200)}`;
    case 'HOOK_FAILED':
      return `⚠ hook failed: ${e.hook}${e.hookName ? ` (${e.hookName})` : ''}: ${truncate(e.error, 200)}`;
    case 'DECISION_REJECTED':
      return `⚠ decision rejected (${e.via}${e.id ? `, id ${e.id}` : ''}${by(e.approver)}): ${e.reason}`;
    case 'OUTPUT_INVALID':
      return `⚠ answer does not match the output schema (attempt ${e.attempt}): ${e.error}`;
    case 'HANDOFF':
      return `⇢ handed off: ${e.from} → ${e.to}${e.reason ? ` (${e.reason})` : ''}`;
    case 'GUARDRAIL_RAN':
      return `${e.tripped ? '✗' : '✓'} ${e.kind} guardrail ${e.name}${e.agent ? ` (agent ${e.agent})` : ''}${e.tripped ? ' tripped' : ' passed'}${e.error ? `: ${truncate(e.error, 200)}` : ''}`;
    case 'CONTEXT_TRIMMED':
      return `✂ context window: ${e.dropped} oldest messages ${e.strategy === 'summarize' ? 'summarised' : 'dropped'} · ~${e.tokensBefore} → ~${e.tokensAfter} tokens`;
    case 'TURN_COMPLETED':
      return '■ turn completed';
    case 'TURN_FAILED':
      return `✗ turn failed: ${e.error}`;
    case 'TURN_CANCELLED':
      return `✗ turn cancelled${e.reason ? `: ${e.reason}` : ''}`;
    default:
      return `· ${compactJson(e, 200)}`;
  }
}

export function formatDecision(d: RecordedDecision): string {
  const verdict = d.approved ? `approved ${d.id} (scope ${d.scope})` : `denied ${d.id}`;
  const reason = d.reason ? ` · reason: ${d.reason}` : '';
  return `${verdict}${by(d.approver)} · via ${d.via} · at ${d.at}${reason}`;
}

/**
 * The commands that decide a pending call from anywhere (src/core/hints.ts): `npx tiller approve/deny`
 * with the `--as`/`--group` the call's approvers rule needs, and the `decide` update through the stock
 * Temporal CLI (`npx tiller temporal …`).
 */
export function decideInstructions(target: DecideTarget, conn: HintConnection): string[] {
  const hints = decideHints(target, conn);
  if (!hints) return [`  ${NOBODY_DECIDES}`];
  return [`  ${hints.approve}`, `  ${hints.deny}`, `  ${hints.update(true)}`];
}

export function formatState(s: TurnState, now = Date.now()): string[] {
  const lines = [`turn ${s.turnId} · agent ${s.agent} · ${s.status}${s.sessionId ? ` · session ${s.sessionId}` : ''}`];
  if (s.pendingApprovals.length) {
    lines.push('pending approvals:');
    for (const p of s.pendingApprovals) {
      const age = formatAge(now - Date.parse(p.requestedAt));
      const deadline = p.expiresAt ? ` · deadline ${p.expiresAt}` : ' · no deadline';
      lines.push(`  ${p.id}  ${p.tool} ${compactJson(p.args)} · waiting ${age}${deadline}`);
      if (p.preview !== undefined) lines.push('    preview:', ...p.preview.split('\n').map((l) => `      ${l}`));
    }
  }
  if (s.toolCalls.length) {
    lines.push('tool calls:');
    for (const c of s.toolCalls) {
      const parts = [`${c.name} ${compactJson(c.args, 80)}`, c.status];
      if (c.durationMs !== undefined) parts.push(formatMs(c.durationMs));
      if (c.decision) {
        const d = c.decision;
        parts.push(`${d.approved ? 'approved' : 'denied'}${by(d.approver)} (${d.scope}, via ${d.via})`);
        if (d.reason) parts.push(`reason: ${truncate(d.reason, 80)}`);
      }
      if (c.error) parts.push(`error: ${truncate(c.error, 120)}`);
      lines.push(`  ${c.id}  ${parts.join(' · ')}`);
    }
  }
  if (s.trust.length) lines.push(`trust: ${s.trust.map((t) => `${t.tool} (${t.scope}${by(t.approver)})`).join(', ')}`);
  lines.push(`usage: ${formatUsage(s.usage)}`);
  if (s.output !== undefined) lines.push(`output: ${s.output}`);
  if (s.error !== undefined) lines.push(`error: ${s.error}`);
  return lines;
}

/** A state built from the turn's result, for a closed turn no worker can replay to answer the query. */
export function stateFromResult(turnId: string, agent: string, r: TurnResult): TurnState {
  return {
    version: 1,
    status: r.status,
    agent,
    turnId,
    pendingApprovals: [],
    toolCalls: r.toolCalls,
    trust: r.trust ?? [],
    usage: r.usage,
    events: [],
    eventCount: 0,
    output: r.output,
    ...(r.error !== undefined && { error: r.error }),
  };
}

export function formatPending(turns: PendingTurn[], now = Date.now()): string[] {
  if (turns.length === 0) return ['nothing waits for approval'];
  const rows = turns.map((t) => [
    t.turnId,
    t.agent ?? '?',
    t.pendingTools.join(', ') || '?',
    formatAge(now - t.startTime.getTime()),
  ]);
  const header = ['TURN', 'AGENT', 'PENDING TOOLS', 'AGE'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line), '', 'see ids and arguments with `npx tiller state <turn>`'];
}
