// The web inbox's script (served as /inbox.js; see index.ts). No framework, no build step, no HTML
// strings: everything the server sends is put in the page as text (textContent).
'use strict';
(function () {
  var KEY = 'tiller-token';
  var token = sessionStorage.getItem(KEY);
  var live = null;
  var lastId = 0;
  var cards = new Map();
  var $ = function (id) {
    return document.getElementById(id);
  };

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (k === 'text') node.textContent = attrs[k];
      else if (k === 'className') node.className = attrs[k];
      else node.setAttribute(k, attrs[k]);
    });
    (children || []).forEach(function (c) {
      if (c) node.appendChild(c);
    });
    return node;
  }

  function api(path, options) {
    options = options || {};
    var headers = { authorization: 'Bearer ' + token };
    if (options.body) headers['content-type'] = 'application/json';
    return fetch(path, { method: options.method || 'GET', headers: headers, body: options.body }).then(function (res) {
      return res.text().then(function (text) {
        var body;
        try {
          body = text ? JSON.parse(text) : null;
        } catch {
          body = { error: text };
        }
        if (!res.ok) {
          var err = new Error((body && body.error) || 'HTTP ' + res.status);
          err.status = res.status;
          throw err;
        }
        return body;
      });
    });
  }

  function pretty(value) {
    if (typeof value === 'string') return value;
    return JSON.stringify(value, null, 2);
  }

  function deadline(a) {
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

  function card(a) {
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
          setTimeout(refresh, 500);
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
    return el(
      'article',
      { className: 'approval', 'data-testid': 'approval', 'data-turn': a.turnId, 'data-call': a.id },
      [
        el('h3', {}, [el('code', { text: a.tool })]),
        facts(a),
        a.preview !== undefined ? el('div', { className: 'label', text: 'Preview' }) : null,
        a.preview !== undefined ? el('pre', { 'data-testid': 'preview', text: pretty(a.preview) }) : null,
        el('div', { className: 'label', text: 'Arguments, as the model sent them' }),
        el('pre', { 'data-testid': 'args', text: pretty(a.args) }),
        el('div', { className: 'actions' }, [approve, reason, deny, watchBtn]),
        note,
      ],
    );
  }

  function render(list) {
    var seen = new Set();
    list.forEach(function (a) {
      var key = a.turnId + ' ' + a.id;
      seen.add(key);
      if (!cards.has(key)) {
        var node = card(a);
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

  function refresh() {
    return api('/approvals')
      .then(function (inbox) {
        $('inbox-error').textContent = '';
        render(inbox.approvals);
      })
      .catch(function (err) {
        if (err.status === 401) return logout('Your token is no longer accepted.');
        $('inbox-error').textContent = err.message;
      });
  }

  function summary(e) {
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

  function addEvent(e) {
    $('events').appendChild(
      el('li', { 'data-type': e.type }, [
        el('span', { className: 'seq', text: String(e.seq) }),
        el('span', { className: 'type', text: e.type }),
        el('span', { text: summary(e) }),
      ]),
    );
  }

  function setStatus(text) {
    var s = $('live-status');
    s.textContent = text;
    s.className = 'badge ' + text;
  }

  /** Returns true when the stream is over. */
  function handle(block) {
    var event = 'message',
      data = '',
      id = null;
    block.split('\n').forEach(function (line) {
      if (!line || line.charAt(0) === ':') return;
      var c = line.indexOf(':');
      var field = c < 0 ? line : line.slice(0, c);
      var value = c < 0 ? '' : line.slice(c + 1);
      if (value.charAt(0) === ' ') value = value.slice(1);
      if (field === 'event') event = value;
      else if (field === 'data') data += (data ? '\n' : '') + value;
      else if (field === 'id') id = value;
    });
    if (id !== null) lastId = Number(id);
    if (!data) return false;
    var payload = JSON.parse(data);
    if (event === 'message') {
      addEvent(payload);
      setStatus('live');
    } else if (event === 'end') {
      setStatus(payload.status);
      return true;
    } else if (event === 'gap') {
      $('events').appendChild(
        el('li', { text: 'events ' + payload.from + '–' + payload.to + ' are no longer available' }),
      );
    } else if (event === 'error') {
      setStatus('error');
      $('events').appendChild(el('li', { className: 'error', text: payload.error }));
      return true;
    }
    return false;
  }

  function watch(turnId) {
    if (live && live.turnId === turnId) return;
    if (live) live.controller.abort();
    var controller = new AbortController();
    live = { turnId: turnId, controller: controller };
    lastId = 0;
    $('events').textContent = '';
    $('live-turn').textContent = turnId;
    setStatus('connecting');
    function connect() {
      var headers = { authorization: 'Bearer ' + token };
      if (lastId) headers['last-event-id'] = String(lastId);
      return fetch('/turns/' + encodeURIComponent(turnId) + '/events', { headers: headers, signal: controller.signal })
        .then(function (res) {
          if (res.status === 204) {
            setStatus('ended');
            return true;
          }
          if (!res.ok)
            return res.json().then(function (b) {
              setStatus('error');
              $('events').appendChild(el('li', { className: 'error', text: b.error }));
              return true;
            });
          setStatus('live');
          var reader = res.body.getReader();
          var decoder = new TextDecoder();
          var buffer = '';
          function pump() {
            return reader.read().then(function (chunk) {
              if (chunk.done) return false;
              buffer += decoder.decode(chunk.value, { stream: true }).replace(/\r\n/g, '\n');
              var i;
              while ((i = buffer.indexOf('\n\n')) >= 0) {
                var block = buffer.slice(0, i);
                buffer = buffer.slice(i + 2);
                if (handle(block)) {
                  controller.abort();
                  return true;
                }
              }
              return pump();
            });
          }
          return pump();
        })
        .catch(function () {
          return controller.signal.aborted;
        })
        .then(function (over) {
          if (!over && !controller.signal.aborted) {
            setStatus('reconnecting');
            setTimeout(connect, 1000);
          }
        });
    }
    connect();
  }

  function show(me) {
    $('login').hidden = true;
    $('app').hidden = false;
    $('logout').hidden = false;
    $('who').textContent = 'Signed in as ' + me.name + (me.groups.length ? ' (' + me.groups.join(', ') + ')' : '');
    refresh();
  }

  function logout(message) {
    sessionStorage.removeItem(KEY);
    token = null;
    if (live) live.controller.abort();
    live = null;
    cards.forEach(function (node) {
      node.remove();
    });
    cards.clear();
    $('app').hidden = true;
    $('login').hidden = false;
    $('logout').hidden = true;
    $('who').textContent = '';
    $('login-error').textContent = message || '';
  }

  $('login-form').addEventListener('submit', function (ev) {
    ev.preventDefault();
    token = $('token').value.trim();
    if (!token) return;
    api('/me')
      .then(function (me) {
        sessionStorage.setItem(KEY, token);
        $('token').value = '';
        $('login-error').textContent = '';
        show(me);
      })
      .catch(function (err) {
        token = null;
        $('login-error').textContent = err.status === 401 ? 'That token is not valid.' : err.message;
      });
  });
  $('logout').addEventListener('click', function () {
    logout();
  });
  $('refresh').addEventListener('click', function () {
    refresh();
  });
  setInterval(function () {
    if (token) refresh();
  }, 5000);
  if (token)
    api('/me')
      .then(show)
      .catch(function () {
        logout();
      });
})();
