/**
 * What the Temporal UI shows about a turn: search attributes (to filter waiting turns) and the
 * current-details markdown (what waits, and the exact commands to decide it). Upserts only on change,
 * so visibility costs one history event per status change, not per event.
 */
import {
  getExternalWorkflowHandle,
  setCurrentDetails,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { TillerAgent, TillerPendingTools, TillerSession, TillerStatus, turnProgressSignal } from '../core/contract';
import type { TurnState } from '../core/state';
import { decideHints, NOBODY_DECIDES } from '../core/hints';

export class Visibility {
  private last = '';
  private readonly useSearchAttributes: boolean;
  private lastDetails = '';
  /** The pending call ids the session last heard of (it starts a turn as running, waiting for nothing). */
  private toldSession = '';

  constructor(
    private readonly state: TurnState,
    useSearchAttributes: boolean,
    /** The turn that started this one as a sub-agent, if any. */
    private readonly parentTurnId?: string,
    /**
     * A lean run (../versions.ts) tells its session only what the session cannot derive: what it waits
     * for. The session marks a turn running when it starts it and learns its end from the child's result.
     */
    private readonly lean = false,
    /**
     * PATCH_AT_COST: a turn its client started with the search attributes of a running turn
     * (`TillerClientOptions.searchAttributes`) does not set them again. They were accepted, so the
     * namespace has them: the turn keeps them true even on a worker told to run without.
     */
    atCost = false,
  ) {
    const shown = atCost ? startedAs(state) : undefined;
    if (shown !== undefined) this.last = shown;
    this.useSearchAttributes = useSearchAttributes || shown !== undefined;
  }

  /**
   * A child turn tells its parent (its session, or the turn it is a sub-agent of) what waits, so the
   * parent's `state` shows it without a query fan-out.
   */
  private tellParent(): void {
    const parent = workflowInfo().parent;
    if (!parent) return;
    const toTurn = parent.workflowId === this.parentTurnId;
    if (!toTurn && parent.workflowId !== this.state.sessionId) return;
    if (!toTurn && this.lean) {
      const pending = this.state.pendingApprovals.map((p) => p.id).join(',');
      if (pending === this.toldSession) return;
      this.toldSession = pending;
    }
    getExternalWorkflowHandle(parent.workflowId)
      .signal(turnProgressSignal, {
        turnId: this.state.turnId,
        status: this.state.status,
        pendingApprovals: this.state.pendingApprovals,
        ...(toTurn && { usage: this.state.usage }),
      })
      .catch(noop); // a parent that has moved on (continued as new, closed) needs no progress
  }

  sync(): void {
    const pendingTools = [...new Set(this.state.pendingApprovals.map((p) => p.tool))].sort();
    const saKey = shownKey(this.state, pendingTools);
    const details = renderDetails(this.state);
    if (details !== this.lastDetails) {
      this.lastDetails = details;
      setCurrentDetails(details);
    }
    if (saKey === this.last) return;
    this.last = saKey;
    this.tellParent();
    if (this.useSearchAttributes) {
      upsertSearchAttributes([
        { key: TillerStatus, value: this.state.status },
        { key: TillerAgent, value: this.state.agent },
        { key: TillerPendingTools, value: pendingTools },
        ...(this.state.sessionId ? [{ key: TillerSession, value: this.state.sessionId }] : []),
      ]);
    }
  }
}

function noop(): void {}

/** The key (see `sync`) of what the run's start search attributes show, when that is a running turn waiting for nothing. */
function startedAs(state: TurnState): string | undefined {
  const shown = workflowInfo().typedSearchAttributes;
  if (shown.get(TillerStatus) !== 'running' || shown.get(TillerAgent) !== state.agent) return undefined;
  if ((shown.get(TillerPendingTools) ?? []).length > 0 || shown.get(TillerSession) !== state.sessionId)
    return undefined;
  return shownKey({ ...state, status: 'running', pendingApprovals: [] }, []);
}

/**
 * What the search attributes show, as a key: an upsert is made when it changes. It includes pending ids:
 * recorded histories upsert on exactly these changes (replay). After a handoff, the agent too
 * (TillerAgent becomes the one that has the turn); turns without one keep the key, and so the upserts,
 * of their recorded histories.
 */
function shownKey(state: TurnState, pendingTools: readonly string[]): string {
  const agent = state.handedOffFrom ? `|${state.agent}` : '';
  return `${state.status}|${pendingTools.join(',')}|${state.pendingApprovals.map((p) => p.id).join(',')}${agent}`;
}

export function renderDetails(state: TurnState): string {
  const lines = [`**${state.agent}** · ${state.status} · ${state.usage.modelCalls} model calls`];
  for (const p of state.pendingApprovals) {
    const hints = decideHints({ turnId: state.turnId, ...p });
    lines.push(
      '',
      `### Waiting for approval: \`${p.tool}\``,
      `- call id: \`${p.id}\``,
      `- arguments: \`${JSON.stringify(p.args)}\``,
      `- requested: ${p.requestedAt}${p.expiresAt ? ` · ${p.escalatesTo ? 'escalates' : 'expires'}: ${p.expiresAt}` : ' · no deadline'}`,
      ...(p.approvers?.length ? [`- may decide: ${p.approvers.join(', ')}${p.escalated ? ' (escalated)' : ''}`] : []),
      ...(p.escalatesTo ? [`- escalates to: ${p.escalatesTo.join(', ')}`] : []),
      ...(p.reminders ? [`- reminders sent: ${p.reminders}`] : []),
      ...(p.preview !== undefined ? ['- preview:', '```', p.preview, '```'] : []),
      ...(hints
        ? [
            `- approve: \`${hints.approve}\` or \`${hints.update(true)}\``,
            `- deny: \`${hints.deny}\` or \`${hints.update(false)}\``,
          ]
        : [`- ${NOBODY_DECIDES}`]),
    );
  }
  for (const child of Object.values(state.children ?? {})) {
    if (child.pendingApprovals.length === 0) continue;
    lines.push(
      '',
      `### Sub-agent \`${child.tool}\` (${child.agent}) waits for approval`,
      `- its turn: \`${child.turnId}\` — decide there: ${child.pendingApprovals
        .map((p) => {
          const hints = decideHints({ turnId: child.turnId, ...p });
          return hints ? `\`${hints.approve}\` (${p.tool})` : `${p.tool}: ${NOBODY_DECIDES}`;
        })
        .join(', ')}`,
    );
  }
  if (state.output !== undefined) lines.push('', state.output.slice(0, 500));
  if (state.error !== undefined) lines.push('', `**Failed:** ${state.error}`);
  return lines.join('\n');
}
