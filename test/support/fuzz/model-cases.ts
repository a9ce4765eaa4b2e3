/**
 * Arbitraries of hostile model responses, one per class. Each case is the answer to a turn's first
 * model request (later requests get a plain "done"), aimed at the demo agent's tools: `read_file`
 * and the gated `delete_file`, pointed at the workspace's sentinel file.
 */
import fc from 'fast-check';
import type { ScriptStep, ScriptToolCall } from '../../../src/testing/scripted-model';
import { deepJson, jsonString, longText, pathArgs, wideObject } from './json-text';
import { rawChunk, rawCompletion, rawStep, rawStream } from './raw-wire';
import { PROTOTYPE_NAMES } from './prototype-names';
import { size } from './sizes';
import { lookAlike, oddString } from './unicode';

/** The file the gated tool is pointed at: it must exist after every case that approved nothing. */
export const SENTINEL = 'sentinel.txt';
export const GATED_TOOL = 'delete_file';
export const FREE_TOOL = 'read_file';

export const MODEL_CLASSES = [
  'deep-args',
  'huge-args',
  'odd-unicode',
  'prototype-keys',
  'huge-names-ids',
  'huge-text',
  'duplicate-ids',
  'many-calls',
  'non-json',
  'wrong-types',
] as const;
export type ModelClass = (typeof MODEL_CLASSES)[number];

export interface ModelCase {
  cls: ModelClass;
  /** What the case is, in a few words (never the payload). */
  label: string;
  /** Streamed (the demo agent) or not (its non-streaming twin). */
  stream: boolean;
  /** The hostile answer. */
  step: ScriptStep;
}

/** Keeps one response under Temporal's 2 MB payload limit (the callModel result must fit). */
const MAX_RESPONSE_CHARS = 1_400_000;

const call = (name: string, args: string, id?: string): ScriptToolCall => ({
  name,
  arguments: args,
  ...(id !== undefined && { id }),
});
const toolName = fc.constantFrom(GATED_TOOL, FREE_TOOL);
const kb = (n: number) => `${Math.round(n / 1024)}KiB`;

const deepArgs: fc.Arbitrary<ModelCase> = fc
  .record({
    depth: size(1_000, 30_000),
    shape: fc.constantFrom('array' as const, 'object' as const),
    where: fc.constantFrom('bare', 'beside-path', 'as-path'),
    tool: toolName,
    calls: size(1, 3),
    stream: fc.boolean(),
  })
  .map(({ depth, shape, where, tool, calls, stream }) => {
    const deep = deepJson(depth, shape);
    const args =
      where === 'bare'
        ? deep
        : where === 'as-path'
          ? `{"path":${deep}}`
          : pathArgs(SENTINEL, { key: 'x', valueJson: deep });
    const toolCalls = Array.from({ length: calls }, () => call(tool, args));
    return {
      cls: 'deep-args' as const,
      label: `${calls}× ${tool} args ${where} ${shape} depth ${depth} (${kb(args.length)})`,
      stream,
      step: { toolCalls },
    };
  });

const hugeArgs: fc.Arbitrary<ModelCase> = fc
  .record({
    kind: fc.constantFrom('long-string', 'wide-object', 'escapes', 'long-path'),
    size: size(1_000, 300_000),
    unit: fc.constantFrom('a', '\u00e9', '\ud83d\udc80', '\u0000', '\\"'),
    tool: toolName,
    calls: size(1, 3),
    stream: fc.boolean(),
  })
  .map(({ kind, size, unit, tool, calls, stream }) => {
    let args: string;
    if (kind === 'wide-object') args = wideObject(Math.ceil(size / 8));
    else if (kind === 'escapes')
      args = pathArgs(SENTINEL, { key: 'pad', valueJson: jsonString('\u0000'.repeat(Math.floor(size / 6))) });
    else if (kind === 'long-path') args = `{"path":${jsonString(longText(unit, size))}}`;
    else args = pathArgs(SENTINEL, { key: 'pad', valueJson: jsonString(longText(unit, size)) });
    const n = Math.max(1, Math.min(calls, Math.floor(MAX_RESPONSE_CHARS / args.length)));
    return {
      cls: 'huge-args' as const,
      label: `${n}× ${tool} ${kind} args of ${kb(args.length)}`,
      stream,
      step: { toolCalls: Array.from({ length: n }, () => call(tool, args)) },
    };
  });

const protoArgs = [
  `{"path":${jsonString(SENTINEL)},"__proto__":{"polluted":"yes"}}`,
  `{"path":${jsonString(SENTINEL)},"constructor":{"prototype":{"polluted":"yes"}}}`,
  `{"__proto__":{"path":${jsonString(SENTINEL)}}}`,
];

const oddCall: fc.Arbitrary<{ call: ScriptToolCall; what: string }> = fc.oneof(
  fc
    .record({ name: fc.oneof(lookAlike(GATED_TOOL), lookAlike(FREE_TOOL), oddString()), id: oddString(16) })
    .map(({ name, id }) => ({ call: call(name, pathArgs(SENTINEL), id), what: 'odd name' })),
  fc
    .record({ tool: toolName, id: oddString(32) })
    .map(({ tool, id }) => ({ call: call(tool, pathArgs(SENTINEL), id), what: 'odd id' })),
  fc
    .record({
      tool: toolName,
      path: fc.oneof(
        oddString(),
        oddString().map((s) => `${SENTINEL}${s}`),
      ),
    })
    .map(({ tool, path }) => ({ call: call(tool, pathArgs(path)), what: 'odd path' })),
  fc.record({ tool: toolName, key: oddString(16), value: oddString(200) }).map(({ tool, key, value }) => ({
    call: call(tool, pathArgs(SENTINEL, { key, valueJson: jsonString(value) })),
    what: 'odd key and value',
  })),
  fc
    .record({ tool: toolName, raw: oddString(40) })
    .map(({ tool, raw }) => ({ call: call(tool, raw), what: 'odd raw args' })),
);

const oddUnicode: fc.Arbitrary<ModelCase> = fc
  .record({
    calls: fc.array(oddCall, { minLength: 1, maxLength: 5 }),
    content: fc.option(oddString(200), { nil: undefined }),
    stream: fc.boolean(),
  })
  .map(({ calls, content, stream }) => ({
    cls: 'odd-unicode' as const,
    label: `${calls.map((c) => c.what).join(', ')}${content !== undefined ? ', odd text' : ''}`,
    stream,
    step: { toolCalls: calls.map((c) => c.call), ...(content !== undefined && { content }) },
  }));

const protoCall: fc.Arbitrary<{ call: ScriptToolCall; what: string }> = fc.oneof(
  fc
    .record({ id: fc.constantFrom(...PROTOTYPE_NAMES), tool: toolName })
    .map(({ id, tool }) => ({ call: call(tool, pathArgs(SENTINEL), id), what: `${tool} with id ${id}` })),
  fc
    .constantFrom(...PROTOTYPE_NAMES)
    .map((name) => ({ call: call(name, pathArgs(SENTINEL)), what: `tool named ${name}` })),
  fc
    .record({ tool: toolName, args: fc.constantFrom(...protoArgs) })
    .map(({ tool, args }) => ({ call: call(tool, args), what: `${tool} with prototype keys in its args` })),
);

/**
 * Prototype names where the model chooses: call ids, tool names and argument keys, and the `index`
 * of a streamed tool call (the model activity keeps its calls in an array indexed by it).
 */
const prototypeKeys: fc.Arbitrary<ModelCase> = fc.oneof(
  fc
    .record({ calls: fc.array(protoCall, { minLength: 1, maxLength: 4 }), stream: fc.boolean() })
    .map(({ calls, stream }) => ({
      cls: 'prototype-keys' as const,
      label: calls.map((c) => c.what).join(', '),
      stream,
      step: { toolCalls: calls.map((c) => c.call) },
    })),
  fc.constantFrom(...PROTOTYPE_NAMES).map((index) => ({
    cls: 'prototype-keys' as const,
    label: `streamed delete_file call with index ${JSON.stringify(index)}`,
    stream: true,
    step: rawStep(streamWith('index', index)),
  })),
);

const hugeNamesIds: fc.Arbitrary<ModelCase> = fc
  .record({
    calls: size(1, 3),
    nameChars: size(0, 400_000),
    idChars: size(0, 400_000),
    unit: fc.constantFrom('a', '\u00e9', '\u200b', '\ud83d\udc80'),
    base: fc.constantFrom('', GATED_TOOL, FREE_TOOL),
    gatedWithHugeId: fc.boolean(),
    stream: fc.boolean(),
  })
  .map(({ calls, nameChars, idChars, unit, base, gatedWithHugeId, stream }) => {
    const per = Math.floor(MAX_RESPONSE_CHARS / calls / 2);
    const name = base + longText(unit, Math.min(nameChars, per));
    const id = longText(unit, Math.max(1, Math.min(idChars, per)));
    const toolCalls = Array.from({ length: calls }, (_, i) =>
      // One of the calls may be the real gated tool with a huge id: it waits for approval as is.
      gatedWithHugeId && i === 0
        ? call(GATED_TOOL, pathArgs(SENTINEL), `${id}-${i}`)
        : call(name || 'x', pathArgs(SENTINEL), `${id}-${i}`),
    );
    return {
      cls: 'huge-names-ids' as const,
      label: `${calls} calls, name ${kb(name.length)}, id ${kb(id.length)}${gatedWithHugeId ? ', gated call with huge id' : ''}`,
      stream,
      step: { toolCalls },
    };
  });

const hugeText: fc.Arbitrary<ModelCase> = fc
  .record({
    chars: size(100_000, 1_300_000),
    unit: fc.constantFrom('a', '\u00e9', '\n', '\ud83d\udc80', '\u202e'),
    withCall: fc.boolean(),
    stream: fc.boolean(),
  })
  .map(({ chars, unit, withCall, stream }) => ({
    cls: 'huge-text' as const,
    label: `${kb(chars)} of text${withCall ? ' with a gated call' : ''}`,
    stream,
    step: {
      content: longText(unit, chars),
      ...(withCall && { toolCalls: [call(GATED_TOOL, pathArgs(SENTINEL))] }),
    },
  }));

const duplicateIds: fc.Arbitrary<ModelCase> = fc
  .record({
    calls: fc.noBias(
      fc.array(
        fc.record({
          id: fc.constantFrom(
            'c1',
            'c1#2',
            'c1#3',
            'call_1_0',
            'call_1_1',
            '',
            ' ',
            'C1',
            '__proto__',
            'constructor',
            'toString',
          ),
          name: fc.constantFrom(GATED_TOOL, FREE_TOOL, 'no_such_tool'),
        }),
        { minLength: 2, maxLength: 50 },
      ),
    ),
    stream: fc.boolean(),
  })
  .map(({ calls, stream }) => ({
    cls: 'duplicate-ids' as const,
    label: `${calls.length} calls over ${new Set(calls.map((c) => c.id)).size} ids (${calls.filter((c) => c.name === GATED_TOOL).length} gated)`,
    stream,
    step: { toolCalls: calls.map((c) => call(c.name, pathArgs(SENTINEL), c.id)) },
  }));

const manyCalls: fc.Arbitrary<ModelCase> = fc
  .record({
    count: size(100, 400),
    gatedShare: fc.constantFrom(0, 0.1, 0.5, 1),
    unknownShare: fc.constantFrom(0, 0.2),
    sameId: fc.boolean(),
    stream: fc.boolean(),
  })
  .map(({ count, gatedShare, unknownShare, sameId, stream }) => {
    const toolCalls = Array.from({ length: count }, (_, i) => {
      const r = (i * 0.6180339887) % 1; // spread the kinds evenly over the response
      const name = r < unknownShare ? `tool_${i}` : r < unknownShare + gatedShare ? GATED_TOOL : FREE_TOOL;
      return call(name, pathArgs(SENTINEL), sameId ? 'same' : `m${i}`);
    });
    const gated = toolCalls.filter((c) => c.name === GATED_TOOL).length;
    return {
      cls: 'many-calls' as const,
      label: `${count} calls (${gated} gated)${sameId ? ', one id' : ''}`,
      stream,
      step: { toolCalls },
    };
  });

const badArgs = [
  '{not json',
  'NaN',
  '[1,2',
  `{'path':'${SENTINEL}'}`,
  '\u0000',
  'undefined',
  `{"path":"${SENTINEL}"`,
  `{"path":"${SENTINEL}"}{"path":"x"}`,
  `{"path":"${SENTINEL}","path":"other.txt"}`,
  `{"path":"other.txt","path":"${SENTINEL}"}`,
  'true',
  '"a string"',
  '123',
  'null',
  `{"path":"${SENTINEL}"} trailing`,
  '\ufeff{"path":"sentinel.txt"}',
];

const garbageBodies = fc.oneof(
  fc.constantFrom('', '{', 'null', '[]', '"x"', '<html><body>502 Bad Gateway</body></html>', '{"choices":'),
  oddString(200),
  size(100_000, 1_000_000).map((n) => `{"choices":[{"message":{"content":"${'x'.repeat(n)}`),
);
const garbageStreams = fc.oneof(
  fc.constantFrom('data: {oops\n\n', 'data: null\n\n', 'data: [1,2]\n\n', 'data: "x"\n\n', 'data: 42\n\n'),
  fc.constant(`data: ${JSON.stringify(rawChunk({ content: 'cut' }))}\n\n`), // no [DONE], no finish
  oddString(200).map((s) => `data: ${s}\n\n`),
);

const nonJson: fc.Arbitrary<ModelCase> = fc.oneof(
  fc
    .record({ args: fc.constantFrom(...badArgs), tool: toolName, stream: fc.boolean() })
    .map(({ args, tool, stream }) => ({
      cls: 'non-json' as const,
      label: `${tool} args ${JSON.stringify(args.slice(0, 40))}`,
      stream,
      step: { toolCalls: [call(tool, args)] },
    })),
  fc.record({ body: garbageBodies, status: fc.constantFrom(200, 200, 500) }).map(({ body, status }) => ({
    cls: 'non-json' as const,
    label: `body of ${kb(body.length)} (${status}): ${JSON.stringify(body.slice(0, 24))}`,
    stream: false,
    step: rawStep(body, status),
  })),
  garbageStreams.map((body) => ({
    cls: 'non-json' as const,
    label: `stream ${JSON.stringify(body.slice(0, 30))}`,
    stream: true,
    step: rawStep(body),
  })),
);

const weird = fc.constantFrom<unknown>(null, 0, -1, 1.5, 1e308, true, '', 'x', [], [null], {}, { a: 1 }, [[[]]]);
const weirdIndex = fc.constantFrom<unknown>('x', '1', -1, 1.5, '0', 1e6, null, 'length', {}); // prototype names: see prototype-keys

const goodCall = () => ({ id: 'w1', type: 'function', function: { name: GATED_TOOL, arguments: pathArgs(SENTINEL) } });

/** A complete non-streamed answer with one field of a delete_file call (or of the body) replaced by `value`. */
function unaryWith(target: string, value: unknown): string {
  const tc: Record<string, any> = goodCall();
  const message: Record<string, any> = { role: 'assistant', content: null, tool_calls: [tc] };
  if (target === 'id' || target === 'type') tc[target] = value;
  else if (target === 'function') tc.function = value;
  else if (target === 'name' || target === 'arguments') tc.function[target] = value;
  else if (target === 'tool_calls') message.tool_calls = value;
  else if (target === 'tool_call') message.tool_calls = [value];
  else if (target === 'content') message.content = value;
  else if (target === 'message') return rawCompletion(value);
  if (target === 'choices' || target === 'usage') return rawCompletion(message, { [target]: value });
  if (target === 'usage_field')
    return rawCompletion(message, { usage: { prompt_tokens: value, completion_tokens: value } });
  if (target === 'finish_reason') {
    return JSON.stringify({
      ...JSON.parse(rawCompletion(message)),
      choices: [{ index: 0, message, finish_reason: value }],
    });
  }
  return rawCompletion(message);
}

/** A complete stream of a delete_file call with one field of one chunk replaced by `value`. */
function streamWith(target: string, value: unknown): string {
  const head: Record<string, any> = {
    index: 0,
    id: 'w1',
    type: 'function',
    function: { name: GATED_TOOL, arguments: '' },
  };
  const argsDelta: Record<string, any> = { index: 0, function: { arguments: pathArgs(SENTINEL) } };
  if (target === 'index') head.index = argsDelta.index = value;
  else if (target === 'id') head.id = value;
  else if (target === 'function') head.function = value;
  else if (target === 'name') head.function.name = value;
  else if (target === 'arguments') argsDelta.function.arguments = value;
  let chunks: unknown[] = [
    rawChunk({ tool_calls: [head] }),
    rawChunk({ tool_calls: [argsDelta] }),
    rawChunk({}, 'tool_calls'),
  ];
  if (target === 'tool_calls') chunks = [rawChunk({ tool_calls: value }), rawChunk({}, 'tool_calls')];
  if (target === 'delta') chunks = [rawChunk(value), ...chunks];
  if (target === 'content') chunks = [rawChunk({ content: value }), ...chunks];
  if (target === 'finish_reason') chunks = [...chunks.slice(0, 2), rawChunk({}, value)];
  if (target === 'chunk') chunks = [value, ...chunks];
  if (target === 'choices') chunks = [{ ...rawChunk({}), choices: value }, ...chunks];
  if (target === 'usage') chunks = [...chunks, { ...rawChunk({}), choices: [], usage: value }];
  return rawStream(chunks);
}

const UNARY_TARGETS = [
  'message',
  'content',
  'tool_calls',
  'tool_call',
  'id',
  'type',
  'function',
  'name',
  'arguments',
  'choices',
  'usage',
  'usage_field',
  'finish_reason',
];
const STREAM_TARGETS = [
  'chunk',
  'choices',
  'delta',
  'tool_calls',
  'index',
  'id',
  'function',
  'name',
  'arguments',
  'content',
  'usage',
  'finish_reason',
];

const wrongTypes: fc.Arbitrary<ModelCase> = fc.oneof(
  fc.record({ target: fc.constantFrom(...UNARY_TARGETS), value: weird }).map(({ target, value }) => ({
    cls: 'wrong-types' as const,
    label: `unary ${target} = ${JSON.stringify(value)}`,
    stream: false,
    step: rawStep(unaryWith(target, value)),
  })),
  fc
    .record({ target: fc.constantFrom(...STREAM_TARGETS), value: weird, index: weirdIndex })
    .map(({ target, value, index }) => {
      const v = target === 'index' ? index : value;
      return {
        cls: 'wrong-types' as const,
        label: `stream ${target} = ${JSON.stringify(v)}`,
        stream: true,
        step: rawStep(streamWith(target, v)),
      };
    }),
);

export const MODEL_ARBITRARIES: Record<ModelClass, fc.Arbitrary<ModelCase>> = {
  'deep-args': deepArgs,
  'huge-args': hugeArgs,
  'odd-unicode': oddUnicode,
  'prototype-keys': prototypeKeys,
  'huge-names-ids': hugeNamesIds,
  'huge-text': hugeText,
  'duplicate-ids': duplicateIds,
  'many-calls': manyCalls,
  'non-json': nonJson,
  'wrong-types': wrongTypes,
};
