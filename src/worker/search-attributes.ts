/** Registers Tiller's search attributes on a namespace that lacks them (`tiller setup`, worker start). */
import type { Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { missingSearchAttributes, SEARCH_ATTRIBUTES } from '../core/contract';

// gRPC status codes (avoids a direct dependency on @grpc/grpc-js for two numbers).
const PERMISSION_DENIED = 7;
const UNIMPLEMENTED = 12;

const TYPES: Record<string, temporal.api.enums.v1.IndexedValueType> = {
  Keyword: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
  KeywordList: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD_LIST,
};

/** `registered`: all are there now (`added`: those this call added); `unavailable`: the server refused. */
export type SearchAttributeSetup =
  { type: 'registered'; added: string[] } | { type: 'unavailable'; missing: string[]; reason: string };

/** A client or worker connection: both carry the operator service. */
export type OperatorConnection = Pick<Connection, 'operatorService'>;

/**
 * Registers Tiller's search attributes on `namespace` where they are missing (what `tiller setup` does), or
 * says which are missing when the server refuses (e.g. Temporal Cloud).
 */
export async function ensureSearchAttributes(
  connection: OperatorConnection,
  namespace: string,
): Promise<SearchAttributeSetup> {
  const existing = await connection.operatorService.listSearchAttributes({ namespace });
  const missing = missingSearchAttributes(existing.customAttributes);
  if (missing.length === 0) return { type: 'registered', added: [] };
  try {
    await connection.operatorService.addSearchAttributes({
      namespace,
      searchAttributes: Object.fromEntries(
        missing.map((name) => [name, TYPES[SEARCH_ATTRIBUTES[name as keyof typeof SEARCH_ATTRIBUTES]]!]),
      ),
    });
    return { type: 'registered', added: missing };
  } catch (err) {
    const code = (err as { code?: number }).code;
    const reason =
      code === PERMISSION_DENIED || code === UNIMPLEMENTED
        ? 'this server does not let this client register search attributes (on Temporal Cloud add them in the namespace settings or with tcld)'
        : (err as Error).message;
    return { type: 'unavailable', missing, reason };
  }
}

/** `createWorker` refused to start: the namespace lacks Tiller's search attributes and they could not be registered. */
export class SearchAttributesMissingError extends Error {
  override readonly name = 'SearchAttributesMissingError';
  constructor(
    readonly namespace: string,
    readonly missing: readonly string[],
    readonly reason: string,
  ) {
    super(
      `namespace ${namespace} lacks Tiller's search attributes (${missing.join(', ') || 'could not list them'}) ` +
        `and this worker could not register them: ${reason}. ` +
        `Run \`TEMPORAL_NAMESPACE=${namespace} npx tiller setup\` (or on Temporal Cloud add them in the namespace ` +
        `settings or with tcld), then start the worker again; pass \`searchAttributes: true\` if they are ` +
        `registered and this client may not list them, or \`searchAttributes: false\` to run without them ` +
        `(turns work, but \`tiller pending\` and the UI cannot find waiting turns).`,
    );
  }
}

/** @deprecated Renamed {@link SearchAttributesMissingError} (errors end in `Error`); this alias goes in 0.5. */
export const SearchAttributesMissing = SearchAttributesMissingError;
/** @deprecated Renamed {@link SearchAttributesMissingError}; this alias goes in 0.5. */
export type SearchAttributesMissing = SearchAttributesMissingError;

/**
 * Registers Tiller's missing search attributes on `namespace`, or throws {@link SearchAttributesMissingError}:
 * without them every turn's workflow task would fail with `BadSearchAttributes` and retry forever.
 */
export async function requireSearchAttributes(connection: OperatorConnection, namespace: string): Promise<string[]> {
  let outcome;
  try {
    outcome = await ensureSearchAttributes(connection, namespace);
  } catch (err) {
    throw new SearchAttributesMissingError(namespace, [], `listing them failed: ${(err as Error).message}`);
  }
  if (outcome.type === 'unavailable')
    throw new SearchAttributesMissingError(namespace, outcome.missing, outcome.reason);
  return outcome.added;
}
