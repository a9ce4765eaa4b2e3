/**
 * Waits with a deadline: a wait that never ends fails with what it waited for, not with jest's
 * timeout and nothing said (issue 34).
 */

/** `promise`, or a rejection naming `what` once `ms` have passed. */
export async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not within ${ms / 1000} s`)), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Calls `probe` every `everyMs` until it returns something other than undefined; throws naming `what` after `ms`. */
export async function pollUntil<T>(
  probe: () => Promise<T | undefined> | T | undefined,
  what: string,
  ms = 30_000,
  everyMs = 50,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms / 1000} s`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
