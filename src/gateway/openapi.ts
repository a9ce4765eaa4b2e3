/** The OpenAPI 3.1 document of the gateway, generated from its zod schemas with `z.toJSONSchema`. */
import { codecPaths, slackPaths, webhookPaths } from './openapi-integrations';
import { components, errors, json, turnId } from './openapi-parts';

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
