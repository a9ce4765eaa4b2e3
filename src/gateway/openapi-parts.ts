/** The pieces of the gateway's OpenAPI document its paths share: the named schemas, refs and errors. */
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

export const NAMED: Record<string, z.ZodType> = {
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
export const json = (name: string) => ({ content: { 'application/json': { schema: ref(name) } } });
export const errors = (...codes: number[]) =>
  Object.fromEntries(codes.map((c) => [String(c), { description: ERROR_TEXT[c] ?? 'error', ...json('Error') }]));
export const ERROR_TEXT: Record<number, string> = {
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
export const turnId = {
  name: 'id',
  in: 'path',
  required: true,
  schema: { type: 'string' },
  description: 'turn (workflow) id',
};

export function components(): Record<string, unknown> {
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
