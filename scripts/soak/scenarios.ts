/**
 * The soak's scenarios: what each turn is, which agent runs it, the input its model script is routed
 * by, and what its end must look like — status, model calls (hence usage), the tool call's status and
 * the ledger effects it leaves. Pure: no I/O.
 */
import type { ToolCallStatus } from '../../src/core/schemas';
import { FAIL_AGENT, SOAK_AGENT, TOOLS } from './agents';

export type ScenarioKind =
  'write' | 'approve' | 'deny' | 'race' | 'instant' | 'timeout' | 'subagent' | 'session' | 'fail' | 'canary' | 'helper';

/** The clients that decide: the gateway over HTTP, `tiller approve|deny`, and the stock `temporal` CLI. */
export type DeciderName = 'gateway' | 'tiller-cli' | 'temporal-cli-update' | 'temporal-cli-signal';

export interface Expectation {
  status: 'completed' | 'failed';
  modelCalls: number;
  tool: string;
  /** The tool call's end, when no decision decides it (a race's is whichever decision won). */
  toolStatus: ToolCallStatus;
  /** Ledger effects whose id starts with `<id>#`. */
  effects: number;
}

export interface Scenario {
  kind: ScenarioKind;
  id: string;
  agent: string;
  input: string;
  expect: Expectation;
  /**
   * Who decides the gated call, and how; a race has two clients deciding opposite ways at once. An
   * `instant` turn's decision goes the moment its call shows in the turn's state (its preview may still
   * run), not when a fault releases it.
   */
  decisions?: { client: DeciderName; approved: boolean }[];
  /** A session's turns share this session id. */
  sessionId?: string;
}

const INPUT_RE = /^soak:([a-z]+):([\w-]+)$/;

export function inputOf(kind: ScenarioKind, id: string): string {
  return `soak:${kind}:${id}`;
}

export function parseInput(text: string): { kind: ScenarioKind; id: string } | undefined {
  const m = INPUT_RE.exec(text);
  return m ? { kind: m[1] as ScenarioKind, id: m[2]! } : undefined;
}

const done = (tool: string, modelCalls = 2, effects = 1): Expectation => ({
  status: 'completed',
  modelCalls,
  tool,
  toolStatus: 'succeeded',
  effects,
});

const EXPECT: Record<Exclude<ScenarioKind, 'helper'>, Expectation> = {
  write: done(TOOLS.write),
  canary: done(TOOLS.write),
  session: done(TOOLS.write),
  approve: done(TOOLS.gated),
  deny: { ...done(TOOLS.gated, 2, 0), toolStatus: 'denied' },
  race: done(TOOLS.gated),
  instant: done(TOOLS.previewed),
  timeout: { ...done(TOOLS.timed, 2, 0), toolStatus: 'timed_out' },
  // The parent's usage includes its sub-agent's: 2 calls each.
  subagent: done(TOOLS.helper, 4),
  // maxModelCalls 1: the model still asks for a tool, so the turn fails before running it.
  fail: { ...done(TOOLS.write, 1, 0), status: 'failed', toolStatus: 'failed' },
};

/** The order scenarios are dealt in; a session counts for two turns. */
const MIX: Exclude<ScenarioKind, 'helper' | 'canary'>[] = [
  'approve',
  'write',
  'deny',
  'subagent',
  'race',
  'instant',
  'timeout',
  'approve',
  'session',
  'deny',
  'instant',
  'fail',
];

const SINGLE_DECIDERS: DeciderName[] = ['gateway', 'tiller-cli', 'temporal-cli-update', 'temporal-cli-signal'];

export function scenario(kind: Exclude<ScenarioKind, 'helper'>, id: string, decider = 0): Scenario {
  const base: Scenario = {
    kind,
    id,
    agent: kind === 'fail' ? FAIL_AGENT : SOAK_AGENT,
    input: inputOf(kind, id),
    expect: EXPECT[kind],
  };
  const client = SINGLE_DECIDERS[decider % SINGLE_DECIDERS.length]!;
  if (kind === 'approve') return { ...base, decisions: [{ client, approved: true }] };
  if (kind === 'deny') return { ...base, decisions: [{ client, approved: false }] };
  // The gateway: the quickest client (an HTTP call), so the decision can beat the call's preview.
  if (kind === 'instant') return { ...base, decisions: [{ client: 'gateway', approved: true }] };
  if (kind === 'race') {
    // Two update-based clients at once, opposite ways: exactly one may be acknowledged.
    const pair: DeciderName[][] = [
      ['gateway', 'tiller-cli'],
      ['tiller-cli', 'temporal-cli-update'],
      ['temporal-cli-update', 'gateway'],
    ];
    const [a, b] = pair[decider % pair.length]!;
    return {
      ...base,
      decisions: [
        { client: a!, approved: true },
        { client: b!, approved: false },
      ],
    };
  }
  return base;
}

/**
 * `count` turns of mixed scenarios (a session is two turns), ids `<prefix><n>`, dealt from the mix
 * starting at position `from` (so that small batches do not all repeat its first kinds).
 */
export function mix(count: number, prefix = 't', from = 0): Scenario[][] {
  const out: Scenario[][] = [];
  let turns = 0;
  let gated = from;
  for (let n = 0; turns < count; n++) {
    const kind = MIX[(from + n) % MIX.length]!;
    const id = `${prefix}${n}`;
    if (kind === 'session') {
      const sessionId = `soak-session-${id}`;
      out.push([1, 2].map((i) => ({ ...scenario('session', `${id}-${i}`), sessionId })));
      turns += 2;
      continue;
    }
    const needsDecision = kind === 'approve' || kind === 'deny' || kind === 'race';
    out.push([scenario(kind, id, needsDecision ? gated++ : 0)]);
    turns++;
  }
  return out;
}
