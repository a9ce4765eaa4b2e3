// The web inbox's cards: one per waiting call (its facts, preview and arguments as text), with the
// buttons that decide it.
import { api } from '/inbox/api.js';
import { $, el } from '/inbox/dom.js';
import { deadline, pretty } from '/inbox/format.js';
import { watch } from '/inbox/live.js';

/** The cards on the page, by turn and call id. */
var cards = new Map();

/** The call's facts: agent, turn, call id, when requested, deadline, approvers. */
function facts(a) {
  return el('dl', {}, [
    el('dt', { text: 'agent' }),
    el('dd', { text: a.agent }),
    el('dt', { text: 'turn' }),
    el('dd', {}, [el('code', { text: a.turnId })]),
    el('dt', { text: 'call' }),
    el('dd', {}, [el('code', { text: a.id })]),
    el('dt', { text: 'requested' }),
    el('dd', { text: new Date(a.requestedAt).toLocaleString() }),
    el('dt', { text: 'deadline' }),
    el('dd', { text: deadline(a), 'data-testid': 'deadline' }),
    el('dt', { text: 'approvers' }),
    el('dd', { text: a.approvers && a.approvers.length ? a.approvers.join(', ') : 'anyone' }),
  ]);
}

/** The card of waiting call `a`; `onDecided` runs shortly after a decision was recorded. */
function card(a, onDecided) {
  var note = el('p', { className: 'note', role: 'status' });
  var reason = el('input', {
    type: 'text',
    placeholder: 'Reason (the model sees it)',
    'aria-label': 'Reason for denying ' + a.tool,
  });
  var approve = el('button', { type: 'button', className: 'approve', text: 'Approve' });
  var deny = el('button', { type: 'button', className: 'deny', text: 'Deny' });
  var watchBtn = el('button', { type: 'button', text: 'Watch' });
  if (!a.youMayDecide) {
    approve.disabled = true;
    deny.disabled = true;
    note.textContent = 'You may not decide this call.';
  }
  function decide(approved) {
    approve.disabled = true;
    deny.disabled = true;
    note.textContent = approved ? 'Approving …' : 'Denying …';
    var body = { id: a.id, approved: approved, argsDigest: a.argsDigest };
    if (!approved && reason.value.trim()) body.reason = reason.value.trim();
    watch(a.turnId);
    api('/turns/' + encodeURIComponent(a.turnId) + '/decisions', { method: 'POST', body: JSON.stringify(body) })
      .then(function (d) {
        note.textContent = (d.approved ? 'Approved' : 'Denied') + ' as ' + (d.approver || '?') + '.';
        setTimeout(onDecided, 500);
      })
      .catch(function (err) {
        note.textContent = err.message;
        note.className = 'note error';
        approve.disabled = !a.youMayDecide;
        deny.disabled = !a.youMayDecide;
      });
  }
  approve.addEventListener('click', function () {
    decide(true);
  });
  deny.addEventListener('click', function () {
    decide(false);
  });
  watchBtn.addEventListener('click', function () {
    watch(a.turnId);
  });
  return el('article', { className: 'approval', 'data-testid': 'approval', 'data-turn': a.turnId, 'data-call': a.id }, [
    el('h3', {}, [el('code', { text: a.tool })]),
    facts(a),
    a.preview !== undefined ? el('div', { className: 'label', text: 'Preview' }) : null,
    a.preview !== undefined ? el('pre', { 'data-testid': 'preview', text: pretty(a.preview) }) : null,
    el('div', { className: 'label', text: 'Arguments, as the model sent them' }),
    el('pre', { 'data-testid': 'args', text: pretty(a.args) }),
    el('div', { className: 'actions' }, [approve, reason, deny, watchBtn]),
    note,
  ]);
}

/** Shows the waiting calls `list`: a card for each new one, the cards of the others removed. */
export function render(list, onDecided) {
  var seen = new Set();
  list.forEach(function (a) {
    var key = a.turnId + ' ' + a.id;
    seen.add(key);
    if (!cards.has(key)) {
      var node = card(a, onDecided);
      cards.set(key, node);
      $('approvals').appendChild(node);
    }
  });
  cards.forEach(function (node, key) {
    if (!seen.has(key)) {
      node.remove();
      cards.delete(key);
    }
  });
  $('count').textContent = String(list.length);
  $('empty').hidden = list.length > 0;
}

/** Removes every card (at logout). */
export function clearCards() {
  cards.forEach(function (node) {
    node.remove();
  });
  cards.clear();
}
