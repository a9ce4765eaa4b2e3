// The web inbox's token (kept in sessionStorage, sent as a bearer header) and its calls to the gateway.

var KEY = 'tiller-token';

/** The token in use: the stored one, or the one being tried at login; null when logged out. */
export var token = sessionStorage.getItem(KEY);

/** Uses `value` as the token (not stored until `keepToken`). */
export function useToken(value) {
  token = value;
}

/** Stores the token in use for this tab's session. */
export function keepToken() {
  sessionStorage.setItem(KEY, token);
}

/** Forgets the token, stored and in use. */
export function forgetToken() {
  sessionStorage.removeItem(KEY);
  token = null;
}

/** A JSON call with the token; an answer other than 2xx rejects with its `error` and `status`. */
export function api(path, options) {
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
