/**
 * What the Temporal UI shows about a workflow before anyone queries it: the static summary (one line
 * in the list) and static details (markdown) of turns, sessions and sub-agents, whoever starts them —
 * a client, a session, or a parent turn. Pure text; the current details live in src/workflows/visibility.ts.
 */
import { TEXT, tillerCommand } from '../hints';

const quote = (text: string) => '> ' + text.slice(0, 1_000).replace(/\n/g, '\n> ');

/** A turn started by a client. */
export function turnSummary(agent: string, input: string): string {
  return `${agent}: ${input.slice(0, 120)}`;
}

export function turnDetails(opts: { agent: string; input: string; sessionId?: string }): string {
  return [
    `**Tiller turn** · agent **${opts.agent}**${opts.sessionId ? ` · session \`${opts.sessionId}\`` : ''}`,
    '',
    quote(opts.input),
    '',
    '- state: query `state`',
    '- decide: update (or signal) `decide` with `{"id": "<tool call id>", "approved": true|false, "reason"?: "..."}`',
  ].join('\n');
}

/** A turn a session runs for one `send`. */
export function sessionTurnSummary(agent: string, sessionId: string, input: string): string {
  return `${agent} (session ${sessionId}): ${input.slice(0, 100)}`;
}

export function sessionTurnDetails(agent: string, sessionId: string, input: string): string {
  return `**Tiller turn** of session \`${sessionId}\` · agent **${agent}**\n\n> ${input.slice(0, 1_000)}`;
}

/** A sub-agent's turn, started by the parent turn's tool call. */
export function subAgentSummary(agent: string, parentTurnId: string, input: string): string {
  return `${agent} (sub-agent of ${parentTurnId}): ${input.slice(0, 100)}`;
}

export function subAgentDetails(opts: {
  agent: string;
  tool: string;
  parentTurnId: string;
  parentAgent: string;
  input: string;
}): string {
  return [
    `**Tiller sub-agent** **${opts.agent}** · called as \`${opts.tool}\` by turn \`${opts.parentTurnId}\` (${opts.parentAgent})`,
    '',
    quote(opts.input),
  ].join('\n');
}

/** A session. */
export function sessionSummary(sessionId: string, agent: string): string {
  return `session ${sessionId} · ${agent}`;
}

export function sessionDetails(sessionId: string, agent: string): string {
  return [
    `**Tiller session** \`${sessionId}\` · agent **${agent}**`,
    '',
    `- next input: \`${tillerCommand(['send', sessionId, TEXT])}\` or update \`send\` with \`{"input": "..."}\``,
    `- state: query \`state\` (turns, trust, usage, the current turn's pending approvals)`,
    `- revoke trust: update \`revokeTrust\` with \`{"tool": "..."}\``,
  ].join('\n');
}
