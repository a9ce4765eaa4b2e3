/**
 * Slack configuration from the environment:
 *
 * - `TILLER_SLACK_BOT_TOKEN` — the app's bot token (`xoxb-…`, scope `chat:write`); worker and gateway
 * - `TILLER_SLACK_CHANNEL` — where the worker posts approval requests (an id such as `C0123ABCD`, or a
 *   name); setting it turns posting on in `tiller worker`
 * - `TILLER_SLACK_SIGNING_SECRET` — the app's signing secret; setting it turns on `POST /slack/interactions`
 *   in `tiller serve`
 * - `TILLER_SLACK_APPROVERS` — JSON `{"U0123ABCD": "alice", "U0456EFGH": {"name": "bob", "groups": ["finance"]}}`
 * - `TILLER_SLACK_API_URL` — the Web API's base URL (default `https://slack.com/api/`; tests use a stand-in)
 * - `TILLER_SLACK_SHOW_ARGS` — `1` shows tool arguments and previews in the channel; by default they are
 *   `[redacted]`, as for a gateway identity without the `args` right (everyone in the channel reads them)
 */
import type { RetryOptions } from '@slack/web-api';
import { z } from 'zod';
import { formatZodError } from '../../core/schemas';
import { SlackApproverMap, type SlackApproverMapInput } from './approvers';

export const DEFAULT_SLACK_API_URL = 'https://slack.com/api/';

export class SlackConfigError extends Error {}

type Env = NodeJS.ProcessEnv;

/** What the worker needs to post (and later update) approval requests. */
export interface SlackPostingConfig {
  token: string;
  channel: string;
  apiUrl: string;
  showArgs: boolean;
}

/** What the gateway needs to take clicks and modal submissions. */
export interface SlackInteractionsConfig {
  token: string;
  signingSecret: string;
  approvers: SlackApproverMapInput;
  apiUrl: string;
  showArgs: boolean;
}

/** `buildGateway({ slack })`: the interactivity configuration, the WebClient's retries and an error reporter. */
export interface SlackGatewayOptions extends SlackInteractionsConfig {
  /** Retries of views.open / chat.update after a click (default: two, quick — the clicker is waiting). */
  retry?: RetryOptions;
  /** Unexpected failures after Slack was answered; default: one line on stderr. */
  onError?: (err: unknown) => void;
}

export const SlackToken = z.string().regex(/^xox[a-z]-[\w-]{1,500}$/, 'a Slack bot token (xoxb-…)');
export const SlackChannel = z
  .string()
  .regex(/^([CGD][A-Z0-9]{2,30}|#?[a-z0-9][\w.-]{0,79})$/, 'a channel id such as C0123ABCD, or a channel name');
const SigningSecret = z.string().min(16, 'at least 16 characters (the Signing Secret of the Slack app)').max(200);
const ApiUrl = z
  .url({ protocol: /^https?$/, error: 'an http(s) URL' })
  .transform((u) => (u.endsWith('/') ? u : `${u}/`));
const Flag = z
  .enum(['', '0', '1', 'false', 'true'], { error: 'expected 1 or 0' })
  .transform((v) => v === '1' || v === 'true');

const SlackEnv = z.object({
  TILLER_SLACK_BOT_TOKEN: SlackToken.optional(),
  TILLER_SLACK_CHANNEL: SlackChannel.optional(),
  TILLER_SLACK_SIGNING_SECRET: SigningSecret.optional(),
  TILLER_SLACK_APPROVERS: z.string().max(1_000_000).optional(),
  TILLER_SLACK_API_URL: ApiUrl.optional(),
  TILLER_SLACK_SHOW_ARGS: Flag.optional(),
});

function read(env: Env): z.infer<typeof SlackEnv> {
  const present = Object.fromEntries(Object.entries(env).filter(([k, v]) => k.startsWith('TILLER_SLACK_') && v));
  const parsed = SlackEnv.safeParse(present);
  if (!parsed.success) throw new SlackConfigError(`Slack configuration: ${formatZodError(parsed.error)}`);
  return parsed.data;
}

function required<T>(value: T | undefined, name: string, why: string): T {
  if (value === undefined) throw new SlackConfigError(`${name} is required ${why}`);
  return value;
}

/** The worker's posting configuration; undefined when `TILLER_SLACK_CHANNEL` is not set. */
export function slackPostingFromEnv(env: Env = process.env): SlackPostingConfig | undefined {
  const e = read(env);
  if (e.TILLER_SLACK_CHANNEL === undefined) return undefined;
  return {
    token: required(e.TILLER_SLACK_BOT_TOKEN, 'TILLER_SLACK_BOT_TOKEN', 'to post to TILLER_SLACK_CHANNEL'),
    channel: e.TILLER_SLACK_CHANNEL,
    apiUrl: e.TILLER_SLACK_API_URL ?? DEFAULT_SLACK_API_URL,
    showArgs: e.TILLER_SLACK_SHOW_ARGS ?? false,
  };
}

/** The gateway's interactivity configuration; undefined when `TILLER_SLACK_SIGNING_SECRET` is not set. */
export function slackInteractionsFromEnv(env: Env = process.env): SlackInteractionsConfig | undefined {
  const e = read(env);
  if (e.TILLER_SLACK_SIGNING_SECRET === undefined) return undefined;
  const why = 'with TILLER_SLACK_SIGNING_SECRET (Slack interactivity)';
  const raw = required(e.TILLER_SLACK_APPROVERS, 'TILLER_SLACK_APPROVERS', why);
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    throw new SlackConfigError('TILLER_SLACK_APPROVERS is not JSON (expected {"<Slack user id>": "<approver name>"})');
  }
  const approvers = SlackApproverMap.safeParse(json);
  if (!approvers.success) throw new SlackConfigError(`TILLER_SLACK_APPROVERS: ${formatZodError(approvers.error)}`);
  return {
    token: required(e.TILLER_SLACK_BOT_TOKEN, 'TILLER_SLACK_BOT_TOKEN', why),
    signingSecret: e.TILLER_SLACK_SIGNING_SECRET,
    approvers: approvers.data,
    apiUrl: e.TILLER_SLACK_API_URL ?? DEFAULT_SLACK_API_URL,
    showArgs: e.TILLER_SLACK_SHOW_ARGS ?? false,
  };
}
