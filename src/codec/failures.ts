/**
 * The failure converter of an encrypting worker and client (`failureConverterPath`): a failure's message
 * and stack trace move into its `encodedAttributes` payload, which the payload codec encrypts, and the
 * history keeps `Encoded failure`. Without it a refused decision's reason (approver, tool, why), a tripped
 * guardrail or a tool's error would be plaintext beside encrypted payloads.
 *
 * Loaded in the workflow sandbox (workflow-side failures: update refusals, a failed turn) as well as in
 * Node (activity failures), so it imports nothing but `@temporalio/common` (through ./failure-strings,
 * which also makes every string of the failure well-formed). Decoding needs no special converter: every
 * SDK's default reads `encodedAttributes` back, so old histories (plain messages) and new ones read alike.
 */
import { WellFormedFailureConverter } from './failure-strings';

/**
 * In the converter so that it survives minification: a prebuilt bundle that contains this string
 * contains this converter (see `bundleEncodesFailures`).
 */
export const ENCODED_FAILURES_MARKER = 'tiller-encoded-failures-v1';

class TillerFailureConverter extends WellFormedFailureConverter {
  readonly tiller = ENCODED_FAILURES_MARKER;
}

export const failureConverter = new TillerFailureConverter({ encodeCommonAttributes: true });
