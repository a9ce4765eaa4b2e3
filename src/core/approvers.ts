/** Approver rules: who may decide a gated call. Pure, shared by the workflow and clients. */

export const GROUP_PREFIX = 'group:';

/**
 * True when `approver` (with the groups a verified client asserts) is allowed by `allowed`
 * (names, or groups as `group:<name>`). An absent or empty rule allows anyone.
 */
export function mayDecide(
  allowed: readonly string[] | undefined,
  approver?: string,
  groups: readonly string[] = [],
): boolean {
  if (!allowed || allowed.length === 0) return true;
  if (approver !== undefined && allowed.includes(approver)) return true;
  return groups.some((g) => allowed.includes(`${GROUP_PREFIX}${g}`));
}

export function describeApprovers(allowed: readonly string[]): string {
  return allowed.join(', ');
}
