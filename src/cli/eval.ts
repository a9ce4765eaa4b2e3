/**
 * `tiller eval`: re-runs recorded turns under a candidate (new instructions, model, provider, API, tool
 * descriptions, gates) without executing any tool, and reports what would change — Markdown or JSON, and
 * an exit code against thresholds for CI (src/eval). The model is the worker's: `OPENAI_BASE_URL`,
 * `OPENAI_API_KEY`, `TILLER_PROVIDERS`; without either, the scripted demo model (offline).
 */
import fs from 'node:fs';
import type { Command } from 'commander';
import { openAIFromEnv } from '../activities/model';
import { providerClients, providersFromEnv } from '../activities/providers';
import { dataConverterFromEnv } from '../codec/encryption';
import type { TemporalSettings } from '../client/connect';
import { evaluate, markdownReport, EvalThresholds, ModelPrices, type Candidate } from '../eval';
import type { GateSpec, ModelApi } from '../core/spec';
import { demoScript, startScriptedModel } from '../testing/scripted-model';
import { CliError, EXIT } from './errors';
import { connectTiller } from './temporal';
import { turnSelection } from './turn-selection';

export interface EvalCommandOptions {
  query?: string;
  session?: string;
  folder?: string;
  limit?: number;
  instructions?: string;
  instructionsFile?: string;
  model?: string;
  provider?: string;
  api?: string;
  describe: string[];
  gate: string[];
  ungate: string[];
  stub?: string;
  judge?: string;
  prices?: string;
  maxDivergent?: number;
  maxDifferentAnswers?: number;
  maxWouldAsk?: number;
  maxErrors?: number;
  json?: boolean;
  out?: string;
}

const collect = (v: string, all: string[]) => [...all, v];
const fraction = (v: string) => Number(v);

/** Adds `tiller eval` to the program. */
export function registerEval(cmd: Command, settings: () => TemporalSettings, done: (code: number) => void): void {
  cmd
    .command('eval')
    .description('re-run recorded turns under a candidate agent (no tool runs) and report what would change')
    .argument('[turns...]', 'turn ids')
    .option('--query <filter>', 'the turns matching this visibility query')
    .option('--session <id>', "a session's turns")
    .option('--folder <dir>', 'a folder of exported histories (JSON)')
    .option('--limit <n>', 'at most this many turns from --query/--session', Number)
    .option('--instructions <text>', "the candidate's instructions")
    .option('--instructions-file <file>', "the candidate's instructions, from a file")
    .option('--model <name>', "the candidate's model")
    .option('--provider <name>', 'a provider from TILLER_PROVIDERS')
    .option('--api <api>', 'chat or responses')
    .option('--describe <tool=text>', 'a new tool description (repeatable)', collect, [])
    .option('--gate <tool>', 'a tool the candidate gates (repeatable)', collect, [])
    .option('--ungate <tool>', 'a tool the candidate no longer gates (repeatable)', collect, [])
    .option('--stub <text>', 'the result of a call the recording did not make')
    .option('--judge <model>', 'a model that judges whether different answers say the same')
    .option('--prices <json>', 'per-model prices: {"model":{"inputPerMTok":1,"outputPerMTok":2}}')
    .option('--max-divergent <fraction>', 'fail when more of the turns diverge (0..1)', fraction)
    .option('--max-different-answers <fraction>', 'fail when more answers differ (0..1)', fraction)
    .option('--max-would-ask <n>', 'fail when more new approvals would be asked', Number)
    .option('--max-errors <n>', 'fail when more candidate runs fail', Number)
    .option('--json', 'print the report as JSON')
    .option('--out <file>', 'also write the Markdown report here')
    .addHelpText('after', EVAL_HELP)
    .action(async (turns: string[], o: EvalCommandOptions) => done(await evalCommand(settings, turns, o)));
}

const EVAL_HELP = [
  '',
  'Examples:',
  '  npx tiller eval --query \'TillerAgent="assistant"\' --instructions-file new.txt',
  '  npx tiller eval turn-1 turn-2 --model gpt-4.1-mini --json | jq .totals',
  '  npx tiller eval --folder histories/ --gate read_file --max-divergent 0.1   # CI: exit 1 past 10%',
  '',
  'Exit code 0 when the thresholds hold, 1 when one is broken.',
].join('\n');

/** The candidate the options describe; `recordedGates` is unknown here, so gates are edited per turn. */
export function candidateOf(o: EvalCommandOptions): Candidate {
  let instructions = o.instructions;
  if (o.instructionsFile !== undefined) instructions = fs.readFileSync(o.instructionsFile, 'utf8');
  if (o.api !== undefined && o.api !== 'chat' && o.api !== 'responses')
    throw new CliError('--api is chat or responses');
  const descriptions = Object.fromEntries(
    o.describe.map((d) => {
      const at = d.indexOf('=');
      if (at < 1) throw new CliError(`--describe takes tool=text, not ${JSON.stringify(d)}`);
      return [d.slice(0, at), d.slice(at + 1)];
    }),
  );
  const editGates = o.gate.length > 0 || o.ungate.length > 0;
  return {
    ...(instructions !== undefined && { instructions }),
    ...(o.model !== undefined && { model: o.model }),
    ...(o.provider !== undefined && { provider: o.provider }),
    ...(o.api !== undefined && { api: o.api as ModelApi }),
    ...(o.describe.length > 0 && { toolDescriptions: descriptions }),
    ...(editGates && {
      spec: (spec) => {
        const gates: Record<string, GateSpec> = { ...spec.gates };
        for (const t of o.gate) gates[t] ??= {};
        for (const t of o.ungate) delete gates[t];
        return { ...spec, gates };
      },
    }),
  };
}

async function evalCommand(settings: () => TemporalSettings, turnIds: string[], o: EvalCommandOptions) {
  if (!turnIds.length && !o.query && !o.session && !o.folder)
    throw new CliError('give turn ids, --query, --session or --folder (see `npx tiller eval --help`)');
  const thresholds = EvalThresholds.parse({
    maxDivergent: o.maxDivergent,
    maxAnswersDifferent: o.maxDifferentAnswers,
    maxWouldAsk: o.maxWouldAsk,
    maxErrors: o.maxErrors,
  });
  const prices = o.prices === undefined ? undefined : ModelPrices.parse(JSON.parse(o.prices));
  const candidate = candidateOf(o);
  const needsTemporal = turnIds.length > 0 || o.query !== undefined || o.session !== undefined;
  const tiller = needsTemporal ? await connectTiller(settings()) : undefined;
  const scripted =
    process.env.OPENAI_API_KEY || process.env.OPENAI_BASE_URL
      ? undefined
      : await startScriptedModel({ script: demoScript() });
  try {
    const providers = providersFromEnv();
    const dataConverter = dataConverterFromEnv();
    const report = await evaluate({
      turns: turnSelection(turnIds, o),
      ...(tiller && { client: tiller.temporal }),
      ...(dataConverter && { dataConverter }),
      model: {
        client: scripted ? openAIFromEnv({ baseURL: scripted.url, apiKey: 'demo' }) : openAIFromEnv(),
        ...(providers && { providers: providerClients(providers) }),
      },
      candidate,
      ...(o.stub !== undefined && { stub: () => o.stub! }),
      ...(o.judge !== undefined && { judge: { model: o.judge } }),
      thresholds,
      ...(prices && { prices }),
      onTurn: (e) =>
        process.stderr.write(`${e.divergent ? 'DIVERGENT' : 'same     '} ${e.turnId} (${e.answer} answer)\n`),
    });
    const markdown = markdownReport(report);
    if (o.out) fs.writeFileSync(o.out, markdown);
    process.stdout.write(o.json ? `${JSON.stringify(report, null, 2)}\n` : markdown);
    return report.passed ? EXIT.ok : EXIT.failed;
  } finally {
    await scripted?.close();
    await tiller?.close().catch(() => undefined);
  }
}
