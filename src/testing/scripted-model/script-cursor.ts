/**
 * The script a server is playing and its place in it: the next step for each request, `push`,
 * replacing the script and the steps left. Pure, no Node imports.
 *
 * @module
 */
import type { ScriptFn, ScriptStep } from './script';

/** Plays an array script one step per request, or asks a function script for each step. */
export class ScriptCursor {
  /** The caller's array itself (not a copy): `push` appends to it. */
  private script: ScriptStep[] | ScriptFn;
  /** The next step of an array script. */
  private position = 0;

  constructor(script: ScriptStep[] | ScriptFn) {
    this.script = script;
  }

  /** The step that answers request number `index` with this body. */
  next(body: unknown, index: number): ScriptStep {
    if (typeof this.script === 'function') return callScript(this.script, body, index);
    const step = this.script[this.position];
    if (step === undefined) return exhausted(this.position);
    this.position++;
    return step;
  }

  /** Append steps to the current array script. Throws if the current script is a function. */
  push(steps: ScriptStep[]): void {
    if (typeof this.script === 'function') {
      throw new Error('scripted model: push() needs an array script, but the current script is a function');
    }
    this.script.push(...steps);
  }

  /** Replace the script; an array script starts again from its first step. */
  replace(script: ScriptStep[] | ScriptFn): void {
    this.script = script;
    this.position = 0;
  }

  /** Steps left in an array script (0 for function scripts). */
  remaining(): number {
    return typeof this.script === 'function' ? 0 : Math.max(0, this.script.length - this.position);
  }
}

/** A function script's step; a throw becomes a 500 that carries its message. */
function callScript(script: ScriptFn, body: unknown, index: number): ScriptStep {
  try {
    return script({ body, index });
  } catch (err) {
    const msg = err instanceof Error ? err.message : String(err);
    return { error: { status: 500, message: `scripted model: script function threw: ${msg}` } };
  }
}

function exhausted(requests: number): ScriptStep {
  return {
    error: {
      status: 500,
      message: `scripted model: script exhausted after ${requests} requests`,
      type: 'server_error',
    },
  };
}
