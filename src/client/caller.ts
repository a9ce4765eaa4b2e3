/**
 * The client half of the verified approver (src/core/caller.ts): with a token of the secured cluster as
 * its API key, a client stamps every `decide` it sends with the `tillerApprover` header — the decision's
 * own `approver` when it names one (the gateway deciding for the user it verified), otherwise the token's
 * subject — and `tillerApproverGroups` likewise. The server refuses the header unless the token allows it.
 */
import type { WorkflowClientInterceptor } from '@temporalio/client';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { decodeJwt } from 'jose';
import { APPROVER_GROUPS_HEADER, APPROVER_HEADER, DECIDE_MESSAGE } from '../core/caller';

export interface TokenIdentity {
  subject: string;
  groups: string[];
}

/**
 * The subject and groups a JWT API key names (read, not verified: the server verifies it). Undefined for
 * an API key that is not a JWT with a subject.
 */
export function tokenIdentity(apiKey: unknown): TokenIdentity | undefined {
  if (typeof apiKey !== 'string' || apiKey.split('.').length !== 3) return undefined;
  try {
    const claims = decodeJwt(apiKey);
    if (typeof claims.sub !== 'string' || !claims.sub) return undefined;
    const groups = Array.isArray(claims.groups) ? claims.groups.filter((g): g is string => typeof g === 'string') : [];
    return { subject: claims.sub, groups };
  } catch {
    return undefined;
  }
}

function decideHeaders(identity: TokenIdentity, decision: unknown): Record<string, Payload> {
  const body = (decision && typeof decision === 'object' ? decision : {}) as {
    approver?: unknown;
    approverGroups?: unknown;
  };
  const approver = typeof body.approver === 'string' ? body.approver : identity.subject;
  const groups = Array.isArray(body.approverGroups) ? body.approverGroups : identity.groups;
  return {
    [APPROVER_HEADER]: defaultPayloadConverter.toPayload(approver),
    ...(groups.length && { [APPROVER_GROUPS_HEADER]: defaultPayloadConverter.toPayload(groups) }),
  };
}

/** Adds the approver headers to `decide` updates and signals sent with `identity`'s token. */
export function decideHeadersInterceptor(identity: TokenIdentity): WorkflowClientInterceptor {
  return {
    startUpdate: (input, next) =>
      next(
        input.updateName === DECIDE_MESSAGE
          ? { ...input, headers: { ...input.headers, ...decideHeaders(identity, input.args[0]) } }
          : input,
      ),
    signal: (input, next) =>
      next(
        input.signalName === DECIDE_MESSAGE
          ? { ...input, headers: { ...input.headers, ...decideHeaders(identity, input.args[0]) } }
          : input,
      ),
  };
}
