/**
 * Running the worker's hooks from activities: the observers of a turn (one failure never stops the
 * others; each is reported back as a HookFailure) and the receipts `onApprovalPending` returns.
 */
import { log } from '@temporalio/activity';
import { BOUNDS, deeperThan } from '../core/bounds';
import type { ApprovalReceipt, HookFailure } from '../core/spec';
import type { TillerHooks } from '../agents/hooks';

export function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

type ObserverKind = 'onAgentStart' | 'onToolStart' | 'onToolEnd' | 'onApprovalPending' | 'onApprovalResolved';

/**
 * Calls one kind of hook on every hook object that has it (with `arg`, or `arg(hook)` per hook);
 * collects failures instead of throwing. `onValue` sees what each returned (a throw there is that hook's failure).
 */
export async function runHooks<K extends ObserverKind>(
  hooks: readonly TillerHooks[],
  kind: K,
  arg: Parameters<NonNullable<TillerHooks[K]>>[0] | ((hook: TillerHooks) => Parameters<NonNullable<TillerHooks[K]>>[0]),
  onValue?: (hook: TillerHooks, value: unknown) => void,
): Promise<HookFailure[]> {
  const failures: HookFailure[] = [];
  for (const hook of hooks) {
    const fn = hook[kind] as ((a: unknown) => unknown) | undefined;
    if (!fn) continue;
    try {
      const value = await fn.call(hook, typeof arg === 'function' ? arg(hook) : arg);
      onValue?.(hook, value);
    } catch (err) {
      log.warn(`hook ${kind} failed`, { hookName: hook.name, error: message(err) });
      failures.push({ hook: kind, ...(hook.name !== undefined && { hookName: hook.name }), error: message(err) });
    }
  }
  return failures;
}

/** Largest receipt an `onApprovalPending` hook may return (characters of JSON): it is recorded in history. */
export const MAX_RECEIPT_CHARS = BOUNDS.receiptChars;

/** A hook's return value as a receipt: plain JSON, small and shallow; else the hook failed. */
export function receiptOf(hook: TillerHooks, value: unknown): ApprovalReceipt {
  if (deeperThan(value, BOUNDS.jsonDepth)) {
    throw new Error(`onApprovalPending returned a receipt nested deeper than ${BOUNDS.jsonDepth} levels`);
  }
  const json = JSON.stringify(value);
  if (json === undefined) throw new Error('onApprovalPending returned a receipt that is not JSON');
  if (json.length > MAX_RECEIPT_CHARS) {
    throw new Error(
      `onApprovalPending returned a receipt of ${json.length} characters; the limit is ${MAX_RECEIPT_CHARS}`,
    );
  }
  return { ...(hook.name !== undefined && { hook: hook.name }), value: JSON.parse(json) };
}
