/**
 * The layers of src/, from the ground up (docs/architecture.md, "Layout"): a room (a top-level folder
 * of src/, or a file at its top) imports only from a lower layer. test/unit/imports.test.ts holds the
 * code to this list, and ./diagram.ts draws it.
 */
import path from 'node:path';
import { SRC } from './import-graph';

export const LAYERS: readonly (readonly string[])[] = [
  ['core'],
  ['agents', 'tools', 'mcp', 'codec', 'observability'],
  ['workflows', 'activities', 'client', 'slack'],
  ['worker', 'gateway', 'testing', 'eval', 'audit'],
  ['cli', 'index.ts'],
];

/** Imports between two rooms of one layer, each with its reason. */
export const SIDEWAYS: Record<string, string> = {
  'audit → eval': 'the audit reads recorded histories through the evaluation’s history source',
};

/** What each layer is, as the diagram labels it. */
export const LAYER_NAMES: readonly string[] = [
  'pure: the contract, spec, schemas, state, policy',
  'what users define; MCP; the payload codec; tracing',
  'the sandbox; the worker’s activities; clients; Slack',
  'a worker; `tiller serve`; offline tests; evals, the audit',
  'the `tiller` command; the package’s API',
];

/** A file's room: the top-level folder of src/ it is in, or the file itself when it sits at the top. */
export const roomOf = (file: string): string => path.relative(SRC, file).split(path.sep)[0]!;

export const layerOf = (room: string): number => LAYERS.findIndex((rooms) => rooms.includes(room));
