/**
 * How long the loopback stand-ins (the scripted model, the Slack API) keep an idle connection open.
 *
 * @module
 */

/**
 * Longer than a client keeps an idle socket in its pool (undici's fetch: the server's `Keep-Alive` hint
 * less a second; Node's agent: 5 s), so the client always closes first. With Node's default of 5 s, a
 * client whose event loop stalled past it (a loaded machine) sent its next request on a socket the server
 * had just closed, and a client with `maxRetries: 0` failed with `Connection error.` for a request never
 * served (test/unit/stand-in-keep-alive.test.ts). Below Node's 60 s `headersTimeout`.
 */
export const IDLE_CONNECTION_MS = 30_000;
