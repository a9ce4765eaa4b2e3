/**
 * The stand-in's other side: delivering interactions to an app's interactivity URL the way Slack
 * documents it (https://api.slack.com/interactivity/handling): `POST` with an
 * `application/x-www-form-urlencoded` body holding one `payload` JSON field, signed with the app's
 * signing secret (`X-Slack-Request-Timestamp`, `X-Slack-Signature: v0=…`). A click carries the message,
 * a fresh `trigger_id` (for views.open) and a `response_url`; a submission carries the view's state.
 *
 * @module
 */
import { randomBytes } from 'node:crypto';
import { signSlackRequest } from '../../slack/gateway/signing';
import type { InteractionAnswer, OpenedView, SlackStandIn, StoredMessage } from './api';

/** Trigger ids and response URLs handed out with interactions, for views.open and /response to check. */
export interface Issued {
  triggers: Map<string, { at: number; used: boolean }>;
  responseUrls: Map<string, { at: number; uses: number }>;
}

const TEAM = { id: 'T0TILLER1', domain: 'tiller-test' };
const APP_ID = 'A0TILLER1';

type Client = Pick<SlackStandIn, 'click' | 'submit' | 'send'>;

export function interactionClient(opts: {
  signingSecret: string;
  origin: () => string;
  issued: Issued;
  changed: () => void;
}): Client {
  const { issued } = opts;
  const trigger = () => {
    const id = `${Date.now()}.${TEAM.id.slice(1)}.${randomBytes(16).toString('hex')}`;
    issued.triggers.set(id, { at: Date.now(), used: false });
    return id;
  };
  const user = (id: string) => ({ id, username: id.toLowerCase(), name: id.toLowerCase(), team_id: TEAM.id });

  const send: Client['send'] = async (gateway, body, headers = {}) => {
    const timestamp = String(Math.floor(Date.now() / 1000));
    const started = performance.now();
    const res = await fetch(`${gateway}/slack/interactions`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-slack-request-timestamp': timestamp,
        'x-slack-signature': signSlackRequest(opts.signingSecret, timestamp, body),
        ...headers,
      },
      body,
    });
    const text = await res.text();
    const ms = performance.now() - started;
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { status: res.status, text, ms, ...(json !== undefined && { json }) } as InteractionAnswer;
  };
  const deliver = (gateway: string, payload: unknown) =>
    send(gateway, new URLSearchParams({ payload: JSON.stringify(payload) }).toString());

  return {
    send,
    async click(gateway, message: StoredMessage, actionId, userId) {
      const actions = message.blocks.find((b) => b.type === 'actions') as
        { block_id?: string; elements: Record<string, unknown>[] } | undefined;
      const button = actions?.elements.find((e) => e.action_id === actionId);
      if (!actions || !button) throw new Error(`message ${message.ts} has no button ${actionId}`);
      const responseId = randomBytes(12).toString('hex');
      issued.responseUrls.set(responseId, { at: Date.now(), uses: 0 });
      return deliver(gateway, {
        type: 'block_actions',
        team: TEAM,
        user: user(userId),
        api_app_id: APP_ID,
        token: 'verification-token-deprecated',
        container: { type: 'message', message_ts: message.ts, channel_id: message.channel, is_ephemeral: false },
        trigger_id: trigger(),
        channel: { id: message.channel, name: 'approvals' },
        message: { type: 'message', bot_id: 'B0TILLER1', ts: message.ts, text: message.text, blocks: message.blocks },
        response_url: `${opts.origin()}/response/${responseId}`,
        actions: [
          {
            ...button,
            block_id: actions.block_id,
            action_ts: (Date.now() / 1000).toFixed(6),
          },
        ],
      });
    },
    async submit(gateway, view: OpenedView, userId, text) {
      const blocks = (view.view.blocks ?? []) as {
        type: string;
        block_id?: string;
        element?: { action_id?: string };
      }[];
      const input = blocks.find((b) => b.type === 'input');
      const values =
        input?.block_id && input.element?.action_id
          ? { [input.block_id]: { [input.element.action_id]: { type: 'plain_text_input', value: text } } }
          : {};
      return deliver(gateway, {
        type: 'view_submission',
        team: TEAM,
        user: user(userId),
        api_app_id: APP_ID,
        token: 'verification-token-deprecated',
        trigger_id: trigger(),
        view: { ...view.view, team_id: TEAM.id, app_id: APP_ID, state: { values } },
        response_urls: [],
      });
    },
  };
}
