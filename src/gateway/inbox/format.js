// The web inbox's words for what the server sends: values as text, a call's deadline, an event in one line.

/** A value as the model sent it: a string as is, anything else as indented JSON. */
export function pretty(value) {
  if (typeof value === 'string') return value;
  return JSON.stringify(value, null, 2);
}

/** When the call's approval request expires, and to whom it escalates then. */
export function deadline(a) {
  if (!a.expiresAt) return 'no deadline';
  var at = new Date(a.expiresAt);
  var mins = Math.round((at.getTime() - Date.now()) / 60000);
  var rel =
    mins < 0
      ? 'passed'
      : mins < 90
        ? 'in ' + mins + ' min'
        : mins < 2880
          ? 'in ' + Math.round(mins / 60) + ' h'
          : 'in ' + Math.round(mins / 1440) + ' days';
  return (
    at.toLocaleString() + ' (' + rel + (a.escalatesTo ? ', then escalates to ' + a.escalatesTo.join(', ') : '') + ')'
  );
}

/** An event of the turn in one line. */
export function summary(e) {
  switch (e.type) {
    case 'AGENT_STARTED':
      return 'agent ' + e.agent + ' started: ' + e.input;
    case 'MODEL_CALLED':
      return (
        'model call ' +
        e.call +
        ' (' +
        e.usage.totalTokens +
        ' tokens)' +
        (e.toolCalls.length
          ? ': asks for ' +
            e.toolCalls
              .map(function (t) {
                return t.name;
              })
              .join(', ')
          : '')
      );
    case 'APPROVAL_REQUESTED':
      return e.tool + ' waits for approval';
    case 'APPROVAL_REMINDED':
      return e.tool + ': reminder ' + e.reminder;
    case 'APPROVAL_ESCALATED':
      return e.tool + ' escalated to ' + e.approvers.join(', ');
    case 'TOOL_APPROVED':
      return e.tool + ' approved by ' + (e.decision.approver || '?');
    case 'TOOL_DENIED':
      return (
        e.tool +
        ' denied' +
        (e.decision && e.decision.approver ? ' by ' + e.decision.approver : '') +
        (e.reason ? ': ' + e.reason : '')
      );
    case 'APPROVAL_TIMED_OUT':
      return e.tool + ': the approval request expired';
    case 'TRUST_GRANTED':
      return e.tool + ' trusted for the ' + e.scope;
    case 'TOOL_STARTED':
      return e.tool + ' started';
    case 'TOOL_ENDED':
      return e.tool + ' ended (' + e.durationMs + ' ms)';
    case 'TOOL_FAILED':
      return e.tool + ' failed: ' + e.error;
    case 'HOOK_FAILED':
      return 'hook ' + (e.hookName || e.hook) + ' failed: ' + e.error;
    case 'DECISION_REJECTED':
      return 'decision rejected: ' + e.reason;
    case 'TURN_COMPLETED':
      return 'turn completed: ' + e.output;
    case 'TURN_FAILED':
      return 'turn failed: ' + e.error;
    case 'TURN_CANCELLED':
      return 'turn cancelled' + (e.reason ? ': ' + e.reason : '');
    default:
      return '';
  }
}
