// The web inbox's script (served as /inbox.js, a module; see index.ts), which logs in and out and keeps
// the list of waiting calls fresh. No framework, no build step, no HTML strings: everything the server
// sends is put in the page as text (textContent). Its parts, served under /inbox/:
//   api.js        the token (sessionStorage) and the JSON calls that send it
//   dom.js        an element by id; new elements whose text is text
//   format.js     values, deadlines and events as text
//   approvals.js  the cards of the waiting calls, with their decide buttons
//   live.js       one turn's live events (the SSE route read with fetch streaming)
import { api, forgetToken, keepToken, token, useToken } from '/inbox/api.js';
import { clearCards, render } from '/inbox/approvals.js';
import { $ } from '/inbox/dom.js';
import { stopWatching } from '/inbox/live.js';

function refresh() {
  return api('/approvals')
    .then(function (inbox) {
      $('inbox-error').textContent = '';
      render(inbox.approvals, refresh);
    })
    .catch(function (err) {
      if (err.status === 401) return logout('Your token is no longer accepted.');
      $('inbox-error').textContent = err.message;
    });
}

function show(me) {
  $('login').hidden = true;
  $('app').hidden = false;
  $('logout').hidden = false;
  $('who').textContent = 'Signed in as ' + me.name + (me.groups.length ? ' (' + me.groups.join(', ') + ')' : '');
  refresh();
}

function logout(message) {
  forgetToken();
  stopWatching();
  clearCards();
  $('app').hidden = true;
  $('login').hidden = false;
  $('logout').hidden = true;
  $('who').textContent = '';
  $('login-error').textContent = message || '';
}

$('login-form').addEventListener('submit', function (ev) {
  ev.preventDefault();
  useToken($('token').value.trim());
  if (!token) return;
  api('/me')
    .then(function (me) {
      keepToken();
      $('token').value = '';
      $('login-error').textContent = '';
      show(me);
    })
    .catch(function (err) {
      useToken(null);
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
