/**
 * Where the failure converters (./failures encoding, ./well-formed-failures plain) live, for
 * `DataConverter.failureConverterPath` and `bundleWorkflowCode`, and whether a prebuilt workflow bundle
 * contains the encoding one. Workflow-side failures are converted inside the bundle: a bundle built
 * without the converter keeps their messages in plaintext whatever the worker's data converter says, so
 * an encrypting worker refuses such a bundle.
 */
import fs from 'node:fs';
import type { DataConverter } from '@temporalio/common';
import type { WorkerOptions } from '@temporalio/worker';
import { ENCODED_FAILURES_MARKER } from './failures';

/** The module exporting the encoding `failureConverter` (message and stack in the encoded attributes). */
export const ENCODED_FAILURES_PATH = require.resolve('./failures');

/**
 * The module exporting the plain `failureConverter` with well-formed strings (./failure-strings): what a
 * worker and a bundle use unless the data converter names its own.
 */
export const WELL_FORMED_FAILURES_PATH = require.resolve('./well-formed-failures');

/** `converter` with Tiller's well-formed failure converter unless it names a failure converter of its own. */
export function withWellFormedFailures(converter: DataConverter = {}): DataConverter {
  return converter.failureConverterPath ? converter : { ...converter, failureConverterPath: WELL_FORMED_FAILURES_PATH };
}

/** Whether `bundle`'s code contains the encoding failure converter. */
export function bundleEncodesFailures(bundle: NonNullable<WorkerOptions['workflowBundle']>): boolean {
  const code = 'code' in bundle ? bundle.code : fs.readFileSync(bundle.codePath, 'utf8');
  return code.includes(ENCODED_FAILURES_MARKER);
}

/**
 * Throws when `dataConverter` encodes failures (the path above) but the prebuilt `bundle` does not: its
 * workflows' failure messages would be stored in plaintext.
 */
export function assertBundleEncodesFailures(
  bundle: WorkerOptions['workflowBundle'],
  dataConverter: DataConverter | undefined,
): void {
  if (!bundle || dataConverter?.failureConverterPath !== ENCODED_FAILURES_PATH) return;
  if (bundleEncodesFailures(bundle)) return;
  throw new Error(
    'the workflow bundle was built without the encoding failure converter, so with encryption on its ' +
      'failure messages would be stored in plaintext: build it with `npx tiller bundle <out> ' +
      '--encrypted` (or bundleWorkflowCode({ ..., failureConverterPath: ENCODED_FAILURES_PATH })), or drop the bundle',
  );
}
