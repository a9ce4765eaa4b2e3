/**
 * Failures the worker sends back with every string well-formed, and bounded. The worker hands its
 * completions to Temporal's core as protobuf, and the core refuses a string that is not valid UTF-8 (under
 * 40 characters protobufjs writes a lone UTF-16 surrogate as bytes that are not UTF-8): one lone surrogate
 * in an error's message (a tool that echoes a hostile argument, a model's tool name, a clip
 * between the halves of a pair) fails the whole completion and stops the worker ("Cannot decode
 * Completion … InvalidString"), and with it every turn it polls for. This converter replaces each lone
 * surrogate with U+FFFD in every string of the failure (message, stack, type, cause …), once, where all
 * failures pass: activity failures in Node and workflow failures and update refusals in the sandbox.
 * Messages and stack traces are clipped on the way (an endpoint's error body can be any size, and the
 * failure goes into history whole).
 *
 * Loaded in the workflow sandbox too, so it imports nothing but `@temporalio/common` and core/bounds.
 */
import {
  DefaultFailureConverter,
  type PayloadConverter,
  type ProtoFailure,
  type SerializationContext,
} from '@temporalio/common';
import { BOUNDS, clip, wellFormed } from '../core/bounds';

/** The longest message and stack trace a failure keeps (characters; longer ones end with a marker). */
export const FAILURE_TEXT_BOUNDS: ReadonlyMap<string, number> = new Map([
  ['message', BOUNDS.failureMessage],
  ['stackTrace', BOUNDS.failureStack],
]);

/**
 * `failure` with every string in it well-formed and its messages and stack traces clipped (in place;
 * payload bytes are left alone).
 */
export function wellFormedFailure(failure: ProtoFailure): ProtoFailure {
  const stack: unknown[] = [failure];
  const seen = new Set<unknown>();
  while (stack.length > 0) {
    const node = stack.pop();
    if (node === null || typeof node !== 'object' || seen.has(node)) continue;
    // Only plain objects and arrays: payload bytes (Uint8Array) and Long values are not text.
    const proto = Object.getPrototypeOf(node);
    if (!Array.isArray(node) && proto !== Object.prototype && proto !== null) continue;
    seen.add(node);
    const record = node as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      const value = record[key];
      if (typeof value === 'string') {
        const max = FAILURE_TEXT_BOUNDS.get(key);
        const fixed = wellFormed(max === undefined ? value : clip(value, max));
        if (fixed !== value) record[key] = fixed;
      } else if (value !== null && typeof value === 'object') stack.push(value);
    }
  }
  return failure;
}

/**
 * Temporal's default failure converter, with well-formed, bounded strings in what it produces: fixed
 * before the encoding converter moves the message and stack into the encoded attributes.
 */
export class WellFormedFailureConverter extends DefaultFailureConverter {
  override errorToFailureInner(
    err: unknown,
    payloadConverter: PayloadConverter,
    context?: SerializationContext,
  ): ProtoFailure {
    return wellFormedFailure(super.errorToFailureInner(err, payloadConverter, context));
  }
}
