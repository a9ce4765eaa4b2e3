/**
 * Slack interaction payloads as they arrive at the interactivity URL: an
 * `application/x-www-form-urlencoded` body with one `payload` field holding JSON
 * (https://api.slack.com/interactivity/handling). Only what Tiller reads is parsed (zod, every string
 * bounded); other interaction types are acknowledged and ignored.
 */
import { z } from 'zod';
import { formatZodError } from '../../core/schemas';

const Short = z.string().max(255);

const User = z.object({ id: z.string().min(1).max(64), username: Short.optional(), name: Short.optional() });

export const BlockActions = z.object({
  type: z.literal('block_actions'),
  user: User,
  trigger_id: Short.optional(),
  response_url: z.string().max(1_000).optional(),
  container: z
    .object({ message_ts: z.string().max(64).optional(), channel_id: z.string().max(64).optional() })
    .optional(),
  channel: z.object({ id: z.string().max(64) }).optional(),
  message: z.object({ ts: z.string().max(64) }).optional(),
  actions: z
    .array(
      z.object({ action_id: Short, value: z.string().max(2_000).optional(), action_ts: z.string().max(64).optional() }),
    )
    .min(1)
    .max(25),
});
export type BlockActions = z.infer<typeof BlockActions>;

const InputValue = z.object({ type: z.string().max(64), value: z.string().max(3_000).nullish() });

export const ViewSubmission = z.object({
  type: z.literal('view_submission'),
  user: User,
  view: z.object({
    id: z.string().min(1).max(64),
    callback_id: Short.optional(),
    private_metadata: z.string().max(3_000).optional(),
    state: z.object({ values: z.record(Short, z.record(Short, InputValue)) }).optional(),
  }),
});
export type ViewSubmission = z.infer<typeof ViewSubmission>;

export type Interaction = BlockActions | ViewSubmission;

export type ParsedBody =
  | { type: 'interaction'; interaction: Interaction }
  /** A kind of interaction Tiller does not handle (shortcuts, view_closed, …): acknowledged, nothing done. */
  | { type: 'ignored'; kind: string }
  | { type: 'invalid'; reason: string };

const Kind = z.object({ type: z.string().min(1).max(64) });

/** The interaction in a verified request body, or why it is not one. */
export function parseInteractionBody(raw: Buffer): ParsedBody {
  const form = new URLSearchParams(raw.toString('utf8'));
  const payloads = form.getAll('payload');
  if (payloads.length !== 1) return { type: 'invalid', reason: 'expected one payload field' };
  let json: unknown;
  try {
    json = JSON.parse(payloads[0]!);
  } catch {
    return { type: 'invalid', reason: 'the payload is not JSON' };
  }
  const kind = Kind.safeParse(json);
  if (!kind.success) return { type: 'invalid', reason: 'the payload has no type' };
  const schema =
    kind.data.type === 'block_actions'
      ? BlockActions
      : kind.data.type === 'view_submission'
        ? ViewSubmission
        : undefined;
  if (!schema) return { type: 'ignored', kind: kind.data.type };
  const parsed = schema.safeParse(json);
  if (!parsed.success)
    return { type: 'invalid', reason: `malformed ${kind.data.type}: ${formatZodError(parsed.error).slice(0, 300)}` };
  return { type: 'interaction', interaction: parsed.data };
}
