/**
 * A server error that repeats is the server's answer, not an outage: a llama-server started without
 * `--jinja` answers every request with tools "500 tools param requires --jinja flag", and retrying it
 * for minutes only hides that from the user. So a 5xx other than 502/503/504 (which say "unavailable":
 * a proxy, a server loading its model) is asked again within the attempt, after 1 s then 2 s; the same
 * status and message `SAME_SERVER_ERROR_LIMIT` times in a row fails the call at once, not retried,
 * with the server's message. A different answer (or error) goes on as usual.
 */
import { ApplicationFailure } from '@temporalio/activity';
import OpenAI from 'openai';
import { FailureType } from '../../core/failures';
import { SAME_SERVER_ERROR_LIMIT } from '../../core/model-retry';
import { serverMessage } from './errors';

const OUTAGE = new Set([502, 503, 504]);

function serverError(err: unknown): { status: number; message: string } | undefined {
  if (!(err instanceof OpenAI.APIError) || typeof err.status !== 'number') return undefined;
  if (err.status < 500 || OUTAGE.has(err.status)) return undefined;
  return { status: err.status, message: serverMessage(err) };
}

/** Resolves after `ms`, or false at once when `signal` aborts first. */
function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const done = (ok: boolean) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      resolve(ok);
    };
    const onAbort = () => done(false);
    const timer = setTimeout(() => done(true), ms);
    signal.addEventListener('abort', onAbort);
  });
}

/** `ask()`, asked again while it fails with a server error, failing fast once the same one repeats. */
export async function askRepeating<T>(ask: () => Promise<T>, signal: AbortSignal): Promise<T> {
  let last: { status: number; message: string } | undefined;
  let times = 0;
  for (;;) {
    try {
      return await ask();
    } catch (err) {
      const now = serverError(err);
      if (!now) throw err;
      times = last && last.status === now.status && last.message === now.message ? times + 1 : 1;
      last = now;
      if (times >= SAME_SERVER_ERROR_LIMIT) {
        throw ApplicationFailure.create({
          type: FailureType.ModelServerError,
          message: `model endpoint answered ${now.status} ${times} times in a row with the same error (not retried): ${now.message}`,
          nonRetryable: true,
        });
      }
      if (!(await pause(1_000 * 2 ** (times - 1), signal))) throw err;
    }
  }
}
