/**
 * The workflow half of the verified approver (src/core/caller.ts): an inbound interceptor that reads the
 * `tillerApprover` / `tillerApproverGroups` headers of a `decide` update or signal and hands them to the
 * approval desk with the decision, under a symbol key — a client's payload is JSON and cannot carry one,
 * so nothing in a decision's body can pose as the verified caller.
 *
 * The SDK hands headers only to interceptors, which a bundle lists in `workflowInterceptorModules`; so
 * that no bundle can leave it out (tests, prebuilt, traced, replay), the turn installs it itself, once, on
 * the workflow's activator, before it sets its handlers.
 */
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import type { WorkflowInboundCallsInterceptor } from '@temporalio/workflow';
import { getActivator } from '@temporalio/workflow/lib/global-attributes';
import {
  APPROVER_GROUPS_HEADER,
  APPROVER_HEADER,
  callerFromHeaders,
  DECIDE_MESSAGE,
  type Caller,
} from '../core/caller';

const CALLER = Symbol('tiller.caller');
const INSTALLED = Symbol('tiller.caller-interceptor');

function decode(payload: Payload | undefined): unknown {
  if (payload === undefined) return undefined;
  try {
    return defaultPayloadConverter.fromPayload(payload);
  } catch {
    return null; // present but unreadable: refused as malformed
  }
}

function callerOfHeaders(headers: Record<string, Payload>): Caller | undefined {
  const own = (key: string) => (Object.prototype.hasOwnProperty.call(headers, key) ? headers[key] : undefined);
  const groups = own(APPROVER_GROUPS_HEADER);
  return callerFromHeaders(decode(own(APPROVER_HEADER)), decode(groups), groups !== undefined);
}

/** The decision with its caller attached (an object only; anything else is left for the desk to refuse). */
function withCaller(args: unknown[], headers: Record<string, Payload>): unknown[] {
  const caller = callerOfHeaders(headers);
  const [raw, ...rest] = args;
  if (caller === undefined || !raw || typeof raw !== 'object' || Array.isArray(raw)) return args;
  return [{ ...(raw as object), [CALLER]: caller }, ...rest];
}

/** The verified caller the interceptor attached to `raw`, if any. */
export function callerOf(raw: unknown): Caller | undefined {
  if (!raw || typeof raw !== 'object') return undefined;
  return (raw as { [CALLER]?: Caller })[CALLER];
}

const interceptor: WorkflowInboundCallsInterceptor = {
  handleSignal: (input, next) =>
    next(input.signalName === DECIDE_MESSAGE ? { ...input, args: withCaller(input.args, input.headers) } : input),
  validateUpdate: (input, next) =>
    next(input.name === DECIDE_MESSAGE ? { ...input, args: withCaller(input.args, input.headers) } : input),
  handleUpdate: (input, next) =>
    next(input.name === DECIDE_MESSAGE ? { ...input, args: withCaller(input.args, input.headers) } : input),
};

/** Installs the interceptor on this workflow (once; later calls do nothing). */
export function installCallerInterceptor(): void {
  const activator = getActivator() as ReturnType<typeof getActivator> & { [INSTALLED]?: true };
  if (activator[INSTALLED]) return;
  activator[INSTALLED] = true;
  activator.interceptors.inbound.push(interceptor);
}
