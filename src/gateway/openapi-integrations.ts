/** The OpenAPI paths of the gateway's optional parts: the codec endpoints, the signed webhook, Slack. */
import { errors, json } from './openapi-parts';

export function codecPaths(): Record<string, unknown> {
  const payloads = {
    content: {
      'application/json': {
        schema: {
          type: 'object',
          required: ['payloads'],
          properties: {
            payloads: {
              type: 'array',
              items: {
                type: 'object',
                properties: {
                  metadata: { type: 'object', additionalProperties: { type: 'string', description: 'base64' } },
                  data: { type: 'string', description: 'base64' },
                },
              },
            },
          },
        },
      },
    },
  };
  const paths: Record<string, unknown> = {};
  for (const op of ['encode', 'decode'] as const) {
    paths[`/codec/${op}`] = {
      post: {
        summary: `${op} payloads with the gateway's AES-256-GCM keys (the Temporal UI's codec server protocol; right \`codec\`)`,
        requestBody: { required: true, ...payloads },
        responses: { '200': { description: `the ${op}d payloads`, ...payloads }, ...errors(400, 401, 403, 413) },
      },
    };
  }
  return paths;
}

/** The signed chat-ops webhook. */
export function webhookPaths(): Record<string, unknown> {
  return {
    '/webhooks/decision': {
      post: {
        summary: 'a decision from a chat button: HMAC-SHA256 signed, 5-minute window, replays rejected',
        security: [],
        parameters: [
          {
            name: 'X-Tiller-Timestamp',
            in: 'header',
            required: true,
            schema: { type: 'string' },
            description: 'unix seconds',
          },
          {
            name: 'X-Tiller-Signature',
            in: 'header',
            required: true,
            schema: { type: 'string' },
            description: 'sha256=<hex HMAC-SHA256(secret, `${timestamp}.${rawBody}`)>',
          },
        ],
        requestBody: { required: true, ...json('WebhookDecision') },
        responses: {
          '200': { description: 'the recorded decision', ...json('RecordedDecision') },
          ...errors(400, 401, 403, 404, 409, 413, 422),
        },
      },
    },
  };
}

/** Slack's interactivity URL (src/gateway/routes/slack.ts). */
export function slackPaths(): Record<string, unknown> {
  const header = (name: string, description: string) => ({
    name,
    in: 'header',
    required: true,
    schema: { type: 'string' },
    description,
  });
  return {
    '/slack/interactions': {
      post: {
        summary: "Slack's interactivity requests (Approve / Deny buttons, the deny modal): v0-signed, answered at once",
        security: [],
        parameters: [
          header('X-Slack-Request-Timestamp', 'unix seconds; within 5 minutes'),
          header('X-Slack-Signature', 'v0=<hex HMAC-SHA256(signing secret, `v0:${timestamp}:${rawBody}`)>'),
        ],
        requestBody: {
          required: true,
          content: {
            'application/x-www-form-urlencoded': {
              schema: { type: 'object', properties: { payload: { type: 'string' } }, required: ['payload'] },
            },
          },
        },
        responses: {
          '200': { description: "acknowledged (empty), or a modal's `response_action: errors`" },
          ...errors(400, 401, 409, 413, 415),
        },
      },
    },
  };
}
