/**
 * The commands Tiller prints for people to run (CLI output, the demo, a turn's details in the Temporal
 * UI, Slack notes, error messages), built in one place so they cannot drift apart. Every one runs as
 * printed from a project that installed the package: `npx tiller …` finds the package's bin, and the
 * stock Temporal CLI is reached through `npx tiller temporal …` (the binary Tiller installed or found,
 * with the same connection env), never a `temporal` assumed to be on PATH. A gate with approvers gets
 * the `--as` (or `--group`) its rule needs. Pure: workflow code imports it.
 */
import { GROUP_PREFIX } from './approvers';
import { workflowOfTurn } from './inline-turns';

/** Where a printed command must connect; printed as env when it is not the default. */
export interface HintConnection {
  address: string;
  namespace: string;
}

/** A word printed as is (already quoted for the shell, or a placeholder such as `"..."`). */
export interface RawWord {
  raw: string;
}

export const raw = (text: string): RawWord => ({ raw: text });

/** The placeholder for a text the person fills in. */
export const TEXT = raw('"..."');

const SAFE = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** `word` quoted for a POSIX shell (unquoted when it is safe as is). */
export function shellQuote(word: string): string {
  return SAFE.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** `TEMPORAL_ADDRESS=… TEMPORAL_NAMESPACE=…` for a connection other than the default. */
function connectionEnv(conn: HintConnection | undefined): string[] {
  if (!conn) return [];
  return [
    ...(conn.address !== 'localhost:7233' ? [`TEMPORAL_ADDRESS=${shellQuote(conn.address)}`] : []),
    ...(conn.namespace !== 'default' ? [`TEMPORAL_NAMESPACE=${shellQuote(conn.namespace)}`] : []),
  ];
}

/** `npx tiller <args>` (with the connection as env when given and not the default). */
export function tillerCommand(args: readonly (string | RawWord)[], conn?: HintConnection): string {
  const words = args.map((a) => (typeof a === 'string' ? shellQuote(a) : a.raw));
  return [...connectionEnv(conn), 'npx', 'tiller', ...words].join(' ');
}

/** The stock Temporal CLI through Tiller's passthrough: `npx tiller temporal <args>`. */
export const temporalCommand = (args: readonly (string | RawWord)[], conn?: HintConnection): string =>
  tillerCommand(['temporal', ...args], conn);

/**
 * Who a decision must come from for a gate's `approvers` rule: nothing for anyone, the first name the
 * rule lists (`--as`), else its first group (`--group`); `undefined` when nobody may decide.
 */
export function deciderFor(approvers: readonly string[] | undefined): { as?: string; group?: string } | undefined {
  if (!approvers) return {};
  const name = approvers.find((a) => !a.startsWith(GROUP_PREFIX));
  if (name !== undefined) return { as: name };
  const group = approvers.find((a) => a.startsWith(GROUP_PREFIX));
  return group !== undefined ? { group: group.slice(GROUP_PREFIX.length) } : undefined;
}

/** What a pending call's hints need. */
export interface DecideTarget {
  turnId: string;
  /** The tool call id. */
  id: string;
  approvers?: readonly string[];
}

/** The decide commands for one pending call, or `undefined` when its rule lets nobody decide. */
export interface DecideHints {
  approve: string;
  deny: string;
  /** The `decide` update through the stock Temporal CLI (what any client can send). */
  update(approved: boolean): string;
}

export function decideHints(target: DecideTarget, conn?: HintConnection): DecideHints | undefined {
  const who = deciderFor(target.approvers);
  if (!who) return undefined;
  const flags = [...(who.as ? ['--as', who.as] : []), ...(who.group ? ['--group', who.group] : [])];
  const { turnId, id } = target;
  // An inline turn's decision goes to its session's workflow, naming the turn (../inline-turns.ts).
  const workflowId = workflowOfTurn(turnId);
  return {
    approve: tillerCommand(['approve', turnId, id, ...flags], conn),
    deny: tillerCommand(['deny', turnId, id, ...flags, '--reason', TEXT], conn),
    update: (approved) =>
      temporalCommand(
        [
          ...['workflow', 'update', 'execute', '--workflow-id', workflowId, '--name', 'decide', '--input'],
          JSON.stringify({
            ...(workflowId !== turnId && { turnId }),
            id,
            approved,
            ...(who.as && { approver: who.as }),
            ...(who.group && { approverGroups: [who.group] }),
          }),
        ],
        conn,
      ),
  };
}

/** What to print instead when a call's rule lets nobody decide. */
export const NOBODY_DECIDES = 'nobody may decide this call (its approvers rule is empty): it waits until it expires';
