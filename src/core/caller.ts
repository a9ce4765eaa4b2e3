/**
 * Who sends a decision, as the secured cluster proves it. A `decide` update or signal carries two
 * Temporal headers, which the payload codec leaves as they are so the server's authorizer can read them
 * (deploy/temporal/server/authz.go):
 *
 * - `tillerApprover`: a JSON string, the approver. The server accepts it only when it is the subject of
 *   the caller's token (or, from the gateway, the user the gateway verified).
 * - `tillerApproverGroups` (optional): a JSON array of the approver's groups, a subset of the token's.
 *
 * The workflow records that approver, whatever name the decision's body types (src/workflows/caller.ts).
 * Shared by clients and workflow code: pure.
 */
export const APPROVER_HEADER = 'tillerApprover';
export const APPROVER_GROUPS_HEADER = 'tillerApproverGroups';
/** The update and signal the headers are for. */
export const DECIDE_MESSAGE = 'decide';

/** The verified caller of a decision, as its headers say; `invalid` when they are malformed. */
export type Caller = { type: 'verified'; approver: string; groups: string[] } | { type: 'invalid'; reason: string };

/**
 * A name as the headers may carry it: a token's subject is plainer (letters, digits, `._@+-`), but the
 * gateway vouches for its own users (`webhook:…`, Slack-mapped names), so 1 to 200 characters without
 * control characters.
 */
// eslint-disable-next-line no-control-regex
const NAME = /^[^\u0000-\u001f\u007f]{1,200}$/;

/** Reads the caller from the headers' decoded values (undefined: no `tillerApprover` header). */
export function callerFromHeaders(approver: unknown, groups: unknown, hasGroups: boolean): Caller | undefined {
  if (approver === undefined) return undefined;
  if (typeof approver !== 'string' || !NAME.test(approver))
    return { type: 'invalid', reason: `the ${APPROVER_HEADER} header is not a name` };
  if (!hasGroups) return { type: 'verified', approver, groups: [] };
  if (!Array.isArray(groups) || groups.length > 32 || !groups.every((g) => typeof g === 'string' && NAME.test(g)))
    return { type: 'invalid', reason: `the ${APPROVER_GROUPS_HEADER} header is not a list of at most 32 names` };
  return { type: 'verified', approver, groups: groups as string[] };
}
