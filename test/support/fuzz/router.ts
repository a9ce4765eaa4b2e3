/**
 * One scripted model for many turns: each turn's input carries its tag, and each tag has its own
 * script — the hostile answer first, then "done" for every later request (a retry included), so a
 * turn that survives its hostile answer can finish.
 */
import type { ScriptFn, ScriptStep } from '../../../src/testing/scripted-model';

const TAG = /fuzz-case:(\S+)/;

export const turnInput = (tag: string): string => `fuzz-case:${tag} do as the model says`;

export class ModelRouter {
  private readonly routes = new Map<string, { first: ScriptStep[]; served: number }>();

  /** `steps` answer the turn's first requests, in order; every later one gets "done". */
  route(tag: string, steps: ScriptStep[]): void {
    this.routes.set(tag, { first: steps, served: 0 });
  }

  /** How many requests the turn tagged `tag` has made. */
  served(tag: string): number {
    return this.routes.get(tag)?.served ?? 0;
  }

  forget(tag: string): void {
    this.routes.delete(tag);
  }

  readonly script: ScriptFn = ({ body }) => {
    const route = this.routes.get(tagOf(body) ?? '');
    if (!route) return { content: 'done' };
    const step = route.first[route.served] ?? { content: 'done' };
    route.served++;
    return step;
  };
}

function tagOf(body: any): string | undefined {
  const messages: unknown = body?.messages;
  if (!Array.isArray(messages)) return undefined;
  for (const m of messages) {
    if (m && typeof m === 'object' && m.role === 'user' && typeof m.content === 'string') {
      const match = TAG.exec(m.content);
      if (match) return match[1];
    }
  }
  return undefined;
}
