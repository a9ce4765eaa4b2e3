// The web inbox's live events: one turn's SSE route read with fetch streaming (so the token goes in a
// header, never in a URL), its frames parsed, resumed from the last id after a drop.
import { token } from '/inbox/api.js';
import { $, el } from '/inbox/dom.js';
import { summary } from '/inbox/format.js';

/** The turn being watched ({ turnId, controller }), or null. */
var live = null;
/** The id of the last event received: where a reconnection resumes. */
var lastId = 0;

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

/** Follows the events of `turnId` (instead of the turn watched so far). */
export function watch(turnId) {
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

/** Stops following the turn watched (at logout). */
export function stopWatching() {
  if (live) live.controller.abort();
  live = null;
}
