/**
 * POST /slack/interactions: Slack's interactivity requests (button clicks, the deny modal), verified
 * with the app's signing secret (src/slack/gateway/signing.ts) before the payload is read, answered at once
 * (Slack allows 3 seconds) and acted on after; decisions go through the gateway's own decide path.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { SlackApi } from '../../slack/common/api';
import { SlackApprovers } from '../../slack/common/approvers';
import type { SlackGatewayOptions } from '../../slack/common/config';
import { DeskError, SlackInteractions, type SlackDesk } from '../../slack/gateway/interactions';
import { parseInteractionBody } from '../../slack/gateway/payloads';
import { SLACK_SIGNATURE_HEADER, SLACK_TIMESTAMP_HEADER, SlackRequestVerifier } from '../../slack/gateway/signing';
import { HttpError } from '../errors';
import type { TurnCalls } from './turn-calls';

/** Largest interaction accepted: Slack echoes the message (Tiller keeps its own well under this). */
export const SLACK_BODY_LIMIT = 128 * 1024;

/** After a click someone is waiting: retry Slack briefly, not for minutes. */
const INTERACTIVE_RETRY = { retries: 2, factor: 2, minTimeout: 250, maxTimeout: 1_000 };

export function registerSlackRoutes(app: FastifyInstance, opts: SlackGatewayOptions, calls: TurnCalls): void {
  const verifier = new SlackRequestVerifier(opts.signingSecret);
  const report =
    opts.onError ?? ((err: unknown) => process.stderr.write(`slack: ${(err as Error)?.message ?? String(err)}\n`));
  const interactions = new SlackInteractions(
    {
      api: new SlackApi({ token: opts.token, apiUrl: opts.apiUrl, retry: opts.retry ?? INTERACTIVE_RETRY }),
      approvers: new SlackApprovers(opts.approvers),
      showArgs: opts.showArgs,
      onError: report,
    },
    deskOf(calls),
  );
  // An encapsulated scope that keeps the raw bytes: the signature is over them.
  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'buffer' }, (_req, body, done) =>
      done(null, body),
    );
    scope.post('/slack/interactions', { bodyLimit: SLACK_BODY_LIMIT, config: { public: true } }, async (req, reply) => {
      const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      const check = verifier.check(header(req, SLACK_TIMESTAMP_HEADER), header(req, SLACK_SIGNATURE_HEADER), raw);
      if (check.type === 'refused') return reply.status(check.status).send({ error: check.reason });
      const parsed = parseInteractionBody(raw);
      if (parsed.type === 'invalid') throw new HttpError(400, parsed.reason);
      if (parsed.type === 'ignored') return reply.status(200).send();
      const { body, then } = interactions.receive(parsed.interaction);
      if (then) void calls.track(then()).catch(report);
      return body ? reply.status(200).send(body) : reply.status(200).send();
    });
  });
}

function header(req: FastifyRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * The gateway's checked read and decide paths, their HTTP refusals as messages for the clicker. The
 * read's worker check is the decision's: one describe per click.
 */
function deskOf(calls: TurnCalls): SlackDesk {
  const refusal = (err: unknown): never => {
    if (err instanceof HttpError) throw new DeskError(err.message, err.statusCode);
    throw err;
  };
  return {
    read: async (turnId) => {
      const described = (await calls.requireWorker(turnId).catch(refusal)).status.name;
      const state = await calls
        .readState(turnId)
        .catch((err: unknown) => calls.closedOrMissing(turnId, err, described))
        .catch(refusal);
      return {
        state,
        decide: (decision, updateId) => calls.decide(turnId, decision, { updateId, described }).catch(refusal),
      };
    },
  };
}
