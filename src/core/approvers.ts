/** Approver rules: who may decide a gated call. Pure, shared by the workflow and clients. */

export const GROUP_PREFIX = 'group:';

/**
 * True when `approver` (with the groups a verified client asserts) is allowed by `allowed`
 * (names, or groups as `group:<name>`). An absent rule allows anyone; an empty one, nobody.
 */
export function mayDecide(
  allowed: readonly string[] | undefined,
  approver?: string,
  groups: readonly string[] = [],
): boolean {
  if (!allowed) return true;
  if (approver !== undefined && allowed.includes(approver)) return true;
  return groups.some((g) => allowed.includes(`${GROUP_PREFIX}${g}`));
}

export function describeApprovers(allowed: readonly string[]): string {
  return allowed.length ? allowed.join(', ') : 'nobody';
}
