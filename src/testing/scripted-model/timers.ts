/**
 * Waiting inside a response: an abortable sleep and a turn of the event loop.
 *
 * @module
 */

/** Resolve after `ms`, or early (returning false) if `signal` aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(false);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** Resolve on the next turn of the event loop (after I/O). */
export function tick(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
