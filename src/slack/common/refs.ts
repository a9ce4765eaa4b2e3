/**
 * What Tiller's buttons and its deny modal carry through Slack: the call they decide (turn, call id,
 * tool, and the digest of the arguments the approver saw) and, in the modal, the message to update.
 * They come back in signed payloads, but are parsed like any input: zod, bounded, JSON only.
 */
import { z } from 'zod';
import { LIMITS } from './mrkdwn';

export const ACTION_APPROVE = 'tiller_approve';
export const ACTION_DENY = 'tiller_deny';
export const DENY_VIEW = 'tiller_deny_reason';
export const REASON_BLOCK = 'reason';
export const REASON_INPUT = 'reason';
/** The longest deny reason (the `decide` payload's limit). */
export const MAX_REASON = 2_000;

const Id = z
  .string()
  .min(1)
  .max(1_000)
  // eslint-disable-next-line no-control-regex
  .regex(/^[^\u0000-\u001f\u007f]+$/, 'no control characters');

/** A button's value: the call it decides. */
export const CallRef = z.strictObject({
  turn: Id,
  call: Id,
  tool: z.string().min(1).max(200),
  digest: z.string().max(200),
});
export type CallRef = z.infer<typeof CallRef>;

/** Where the click came from: the message to update, the URL for ephemeral answers. */
export const MessageRef = z.strictObject({
  channel: z.string().min(1).max(64).optional(),
  ts: z.string().min(1).max(64).optional(),
  responseUrl: z.string().max(1_000).optional(),
});
export type MessageRef = z.infer<typeof MessageRef>;

/** The deny modal's `private_metadata`. */
export const DenyMeta = z.strictObject({ ref: CallRef, where: MessageRef });
export type DenyMeta = z.infer<typeof DenyMeta>;

/** JSON of `value` when it fits in `max` characters (else undefined). */
export function encode(value: unknown, max: number): string | undefined {
  const json = JSON.stringify(value);
  return json.length <= max ? json : undefined;
}

/** The button value for a call; undefined when its ids are too long for a button. */
export function buttonValue(ref: CallRef): string | undefined {
  return encode(ref, LIMITS.buttonValue);
}

/** Parses JSON text against a schema; undefined when it is not JSON or does not match. */
export function decode<S extends z.ZodType>(schema: S, text: string | undefined): z.infer<S> | undefined {
  if (text === undefined) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return undefined;
  }
  const parsed = schema.safeParse(json);
  return parsed.success ? parsed.data : undefined;
}
