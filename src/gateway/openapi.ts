/** The OpenAPI 3.1 document of the gateway, generated from its zod schemas with `z.toJSONSchema`. */
import { z } from 'zod';
import {
  CancelResult,
  DecisionBody,
  ErrorBody,
  Inbox,
  Me,
  Recorded,
  StartTurnBody,
  TurnStarted,
  TurnStateDoc,
  WebhookDecisionBody,
} from './schemas';

const NAMED: Record<string, z.ZodType> = {
  StartTurn: StartTurnBody,
  TurnStarted,
  TurnState: TurnStateDoc,
  DecisionRequest: DecisionBody,
  RecordedDecision: Recorded,
  WebhookDecision: WebhookDecisionBody,
  Inbox,
  Identity: Me,
  CancelResult,
  Error: ErrorBody,
};

const ref = (name: keyof typeof NAMED & string) => ({ $ref: `#/components/schemas/${name}` });
const json = (name: string) => ({ content: { 'application/json': { schema: ref(name) } } });
const errors = (...codes: number[]) =>
  Object.fromEntries(codes.map((c) => [String(c), { description: ERROR_TEXT[c] ?? 'error', ...json('Error') }]));
const ERROR_TEXT: Record<number, string> = {
  400: 'invalid request (bad JSON, bad parameter)',
  401: 'missing or invalid credentials / signature',
  403: 'this identity may not do this',
  404: 'unknown turn',
  409: 'the decision conflicts with the turn (not pending, already decided, replayed webhook …)',
  413: 'body too large',
  415: 'unsupported content type',
  422: 'the body does not match the schema (or edited arguments fail the tool schema)',
  429: 'rate limited',
  503: 'no worker polls the turn’s task queue (the answer carries `turn`: what visibility knows)',
  504: 'the turn did not answer (no worker?)',
};
const turnId = {
  name: 'id',
  in: 'path',
  required: true,
  schema: { type: 'string' },
  description: 'turn (workflow) id',
};

function components(): Record<string, unknown> {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries(NAMED)) registry.add(schema, { id });
  const { schemas } = z.toJSONSchema(registry, {
    uri: (id) => `#/components/schemas/${id}`,
    io: 'input',
    unrepresentable: 'any',
  });
  return Object.fromEntries(
    Object.entries(schemas).map(([id, s]) => {
      const { $schema: _s, $id: _i, ...rest } = s as Record<string, unknown>;
      return [id, rest];
    }),
  );
}

/** Starting, reading, following, deciding and cancelling a turn. */
function turnPaths(): Record<string, unknown> {
  return {
    '/turns': {
      post: {
        summary: 'start a turn (or the next turn of a session)',
        requestBody: { required: true, ...json('StartTurn') },
        responses: { '201': { description: 'started', ...json('TurnStarted') }, ...errors(400, 401, 403, 409, 422) },
      },
    },
    '/turns/{id}': {
      get: {
        summary: "the turn's state (the `state` query); its content redacted without the args right",
        parameters: [turnId],
        responses: { '200': { description: 'state', ...json('TurnState') }, ...errors(401, 403, 404, 503, 504) },
      },
    },
    '/turns/{id}/events': eventsPath(),
    '/turns/{id}/decisions': {
      post: {
        summary: 'decide a pending call (the `decide` update); the approver is the verified identity',
        parameters: [
          turnId,
          {
            name: 'Idempotency-Key',
            in: 'header',
            schema: { type: 'string' },
            description: 'retries with the same key are the same update',
          },
        ],
        requestBody: { required: true, ...json('DecisionRequest') },
        responses: {
          '200': { description: 'the recorded decision', ...json('RecordedDecision') },
          ...errors(400, 401, 403, 404, 409, 413, 422, 503, 504),
        },
      },
    },
    '/turns/{id}/cancel': {
      post: {
        summary: 'request cancellation of a turn or session',
        parameters: [turnId],
        responses: { '202': { description: 'requested', ...json('CancelResult') }, ...errors(401, 403, 404, 409) },
      },
    },
  };
}

/** The SSE route. */
function eventsPath(): Record<string, unknown> {
  return {
    get: {
      summary: "the turn's events live (Server-Sent Events, id = seq); resumable with Last-Event-ID",
      parameters: [
        turnId,
        { name: 'types', in: 'query', schema: { type: 'string' }, description: 'e.g. TOOL_*,APPROVAL_*' },
        { name: 'Last-Event-ID', in: 'header', schema: { type: 'string' }, description: 'resume after this seq' },
        { name: 'lastEventId', in: 'query', schema: { type: 'string' }, description: 'same, as a parameter' },
        {
          name: 'access_token',
          in: 'query',
          schema: { type: 'string' },
          description: 'bearer token for EventSource clients (this route only)',
        },
      ],
      responses: {
        '200': {
          description:
            'text/event-stream: default events carry a TurnEvent (JSON); `gap`, `end` ({status}) and `error` events',
          content: { 'text/event-stream': { schema: { type: 'string' } } },
        },
        '204': { description: 'the turn has ended and nothing follows the given Last-Event-ID' },
        ...errors(400, 401, 403, 404),
      },
    },
  };
}

/** The inbox, the caller, the web page, this document, health. */
function otherPaths(): Record<string, unknown> {
  return {
    '/approvals': {
      get: {
        summary: 'the inbox: waiting calls of turns awaiting approval (visibility), with their details',
        parameters: [
          { name: 'agent', in: 'query', schema: { type: 'string' } },
          { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 500 } },
        ],
        responses: { '200': { description: 'inbox', ...json('Inbox') }, ...errors(401, 403) },
      },
    },
    '/me': {
      get: {
        summary: 'the verified identity of the caller',
        responses: { '200': { description: 'identity', ...json('Identity') }, ...errors(401) },
      },
    },
    '/inbox': { get: { summary: 'the web inbox (HTML)', security: [], responses: { '200': { description: 'HTML' } } } },
    '/openapi.json': {
      get: { summary: 'this document', security: [], responses: { '200': { description: 'OpenAPI 3.1' } } },
    },
    '/healthz': { get: { summary: 'liveness', security: [], responses: { '200': { description: 'ok' } } } },
  };
}

/** POST /codec/encode and /codec/decode (the Temporal UI's codec server protocol). */
function codecPaths(): Record<string, unknown> {
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
function webhookPaths(): Record<string, unknown> {
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
function slackPaths(): Record<string, unknown> {
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

export function openApiDocument(opts: {
  version: string;
  webhook: boolean;
  codec?: boolean;
  slack?: boolean;
}): Record<string, unknown> {
  const paths: Record<string, unknown> = {
    ...turnPaths(),
    ...otherPaths(),
    ...(opts.codec && codecPaths()),
    ...(opts.webhook && webhookPaths()),
    ...(opts.slack && slackPaths()),
  };
  return {
    openapi: '3.1.0',
    info: {
      title: 'Tiller gateway',
      version: opts.version,
      description: 'Start turns, read their state and events, and decide their pending tool calls over HTTP.',
    },
    security: [{ bearer: [] }],
    paths,
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'an opaque token or a JWT' } },
      schemas: components(),
    },
  };
}
