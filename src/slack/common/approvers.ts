/**
 * Who a Slack user is as an approver: the `TILLER_SLACK_APPROVERS` map (Slack user id → Tiller approver
 * name, or `{name, groups}`). A user not in the map decides nothing. Names follow the gateway's rules
 * (no whitespace, `webhook:` is reserved), so a mapped name is the same person everywhere.
 */
import { z } from 'zod';

/** A Slack user id (`U…`, or `W…` on Enterprise Grid). */
export const SlackUserId = z.string().regex(/^[UW][A-Z0-9]{2,30}$/, 'a Slack user id such as U0123ABCD');

const Name = z
  .string()
  .min(1)
  .max(200)
  .regex(/^\S+$/, 'names have no whitespace')
  .refine((n) => !n.startsWith('webhook:'), 'names starting with webhook: are reserved');

/** `"alice"` or `{"name": "alice", "groups": ["finance"]}`. */
export const SlackApproverEntry = z.preprocess(
  (entry) => (typeof entry === 'string' ? { name: entry } : entry),
  z.strictObject({ name: Name, groups: z.array(Name).max(50).default([]) }),
);

export const SlackApproverMap = z.record(z.string(), SlackApproverEntry).superRefine((map, ctx) => {
  const ids = Object.keys(map);
  if (ids.length > 10_000) ctx.addIssue({ code: 'custom', message: 'at most 10,000 Slack users' });
  for (const id of ids.filter((k) => !SlackUserId.safeParse(k).success).slice(0, 3)) {
    ctx.addIssue({ code: 'custom', path: [id], message: 'not a Slack user id (such as U0123ABCD)' });
  }
});
export type SlackApproverMapInput = Record<string, string | { name: string; groups?: string[] }>;

export interface SlackApprover {
  name: string;
  groups: string[];
}

export class SlackApprovers {
  private readonly byUser: ReadonlyMap<string, SlackApprover>;

  constructor(map: SlackApproverMapInput) {
    const parsed = SlackApproverMap.safeParse(map);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new Error(`Slack approvers: ${issue.path.join('.') || '(map)'}: ${issue.message}`);
    }
    this.byUser = new Map(Object.entries(parsed.data));
  }

  /** The approver a Slack user decides as; undefined when the user is not mapped. */
  lookup(userId: string): SlackApprover | undefined {
    return this.byUser.get(userId);
  }

  get size(): number {
    return this.byUser.size;
  }
}
