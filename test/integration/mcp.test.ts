/**
 * MCP tool sources against real MCP servers: the fixture ticket desk (test/fixtures/mcp/server.ts)
 * as a stdio child process and over streamable HTTP on loopback.
 */
import net from 'node:net';
import path from 'node:path';
import { defineAgent } from '../../src/agents/define';
import type { AgentSpec } from '../../src/core/spec';
import { parseMcpServers, type McpServerConfig } from '../../src/mcp/config';
import { defaultMcpGates, gatedByDefault, resultText, type McpTool } from '../../src/mcp/convert';
import { McpPool } from '../../src/mcp/pool';
import { splitQualifiedName } from '../../src/mcp/names';
import { startHttpMcpServer, type HttpMcpServer } from '../fixtures/mcp/server';
import { awaitingApproval, createHarness, waitForState, type Harness } from '../support/harness';
import { ROOT } from '../support/processes';
import { activityResults, localActivity } from '../support/history';

let h: Harness;
let web: HttpMcpServer;
let deadUrl: string;
/** A dead server whose URL and headers carry secrets (userinfo, a query parameter, a header). */
let vaultUrl: string;
const VAULT_HEADERS = { Authorization: 'Bearer HDR-SECRET-3', 'X-Api-Key': 'HDR-SECRET-4' };

/** A loopback URL nothing listens on: a port the OS just handed out and took back. */
async function closedPortUrl(): Promise<string> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return `http://127.0.0.1:${port}/mcp`;
}

beforeAll(async () => {
  h = await createHarness();
  web = await startHttpMcpServer();
  deadUrl = await closedPortUrl();
  vaultUrl = deadUrl.replace('http://', 'http://tiller:PW-SECRET-1@') + '?api_key=QS-SECRET-2&team=ops';
});
afterAll(async () => {
  await web?.close();
  await h?.close();
});

const mcpServers = (): McpServerConfig[] => [
  {
    name: 'desk',
    command: process.execPath,
    args: ['--require', 'tsx/cjs', path.join(ROOT, 'test/fixtures/mcp/server.ts')],
    cwd: ROOT,
  },
  { name: 'web', url: web.url },
  { name: 'dead', url: deadUrl },
  { name: 'vault', url: vaultUrl, headers: VAULT_HEADERS },
];

// Tools a server does not mark read-only are gated by default (the MCP spec's defaults); these agents
// say which ones they run without a gate.
const deskAgent = defineAgent({
  name: 'desk-agent',
  instructions: 'Help with tickets.',
  tools: [],
  mcp: ['desk'],
  approvals: { desk__whoami: false },
});
const webAgent = defineAgent({
  name: 'web-agent',
  instructions: 'Help with tickets.',
  tools: ['read_file', 'web__create_ticket', 'web__delete_ticket', 'web__close_ticket'],
  approvals: { web__create_ticket: false, web__close_ticket: false },
});
const defaultsAgent = defineAgent({
  name: 'defaults-agent',
  instructions: 'x',
  tools: ['web__list_tickets', 'web__create_ticket', 'web__whoami'],
});
const vaultAgent = defineAgent({ name: 'vault-agent', instructions: 'x', tools: ['vault__anything'] });
const trustingAgent = defineAgent({
  name: 'trusting-agent',
  instructions: 'x',
  tools: ['web__delete_ticket'],
  approvals: { web__delete_ticket: false },
});
const deadAgent = defineAgent({ name: 'dead-agent', instructions: 'x', tools: ['dead__anything'] });
const options = () => ({
  agents: [deskAgent, webAgent, trustingAgent, deadAgent, defaultsAgent, vaultAgent],
  mcpServers: mcpServers(),
});

const toolMessage = (body: any, id: string) =>
  body.messages.find((m: any) => m.role === 'tool' && m.tool_call_id === id)?.content;

/** Every byte field of a history event (its payloads), decoded as text, to search what history recorded. */
function eventText(event: unknown): string {
  const texts: string[] = [];
  const walk = (value: unknown): void => {
    // Payload data may come from another realm than jest's globals: no `instanceof Uint8Array` here.
    if (ArrayBuffer.isView(value)) texts.push(Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString());
    else if (value && typeof value === 'object') Object.values(value).forEach(walk);
  };
  walk(event);
  return texts.join('\n');
}

async function history(turnId: string) {
  return (await h.client.workflow.getHandle(turnId).fetchHistory()).events ?? [];
}

/** The spec `startTurn` recorded for the turn (an activity's result, or a lean run's local activity marker). */
async function recordedSpec(turnId: string): Promise<AgentSpec> {
  const [started] = activityResults(await history(turnId), 'startTurn') as { spec: AgentSpec }[];
  if (!started) throw new Error(`no startTurn result in the history of ${turnId}`);
  return started.spec;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitUntil(what: string, predicate: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('stdio: a server`s tools are listed once into the turn`s spec, called, and their results reach the model', async () => {
  h.model.setScript([
    {
      toolCalls: [
        { id: 'l1', name: 'desk__list_tickets', arguments: { minPriority: 3 } },
        { id: 'w1', name: 'desk__whoami', arguments: {} },
      ],
    },
    { toolCalls: [{ id: 'l2', name: 'desk__list_tickets', arguments: {} }] },
    { content: 'two tickets are open' },
  ]);
  const turnId = h.turnId('mcp-stdio');
  const first = h.model.requests.length;
  const result = await h.withWorker(async () => {
    await h.tiller.startTurn({ agent: 'desk-agent', input: 'what is open?', turnId });
    return h.tiller.result(turnId);
  }, options());
  expect(result).toMatchObject({ status: 'completed', output: 'two tickets are open' });

  const requests = h.model.requests.slice(first);
  expect(requests).toHaveLength(3);
  // The model sees every tool of the server, with the server's descriptions and input schemas.
  const offered = requests[0]!.body.tools.map((t: any) => t.function);
  expect(offered.map((t: any) => t.name)).toEqual([
    'desk__list_tickets',
    'desk__create_ticket',
    'desk__delete_ticket',
    'desk__close_ticket',
    'desk__whoami',
  ]);
  expect(offered[1]).toEqual({
    name: 'desk__create_ticket',
    description: 'Opens a ticket.',
    parameters: {
      type: 'object',
      properties: { title: { type: 'string', minLength: 1 }, priority: { type: 'integer', minimum: 1, maximum: 5 } },
      required: ['title', 'priority'],
    },
  });
  expect(toolMessage(requests[1]!.body, 'l1')).toBe('T-1 printer on fire (5)\nT-2 coffee machine empty (3)');
  const pid = Number(toolMessage(requests[1]!.body, 'w1'));
  expect(pid).toBeGreaterThan(0);
  expect(pid).not.toBe(process.pid);

  // Annotations: gated unless marked read-only (and not also destructive); whoami is opted out.
  const spec = await recordedSpec(turnId);
  expect(spec.gates).toEqual({ desk__create_ticket: {}, desk__delete_ticket: {}, desk__close_ticket: {} });
  expect(spec.tools.find((t) => t.name === 'desk__whoami')?.mcp).toEqual({
    server: 'desk',
    tool: 'whoami',
    annotations: { readOnlyHint: true, destructiveHint: true },
  });

  // The list is recorded once, in startTurn's result — not with each of the three model calls.
  const events = await history(turnId);
  const listing = events.filter((e) => eventText(e).includes('Opens a ticket.'));
  expect(listing).toHaveLength(1);
  expect(localActivity(listing[0]!)?.type).toBe('startTurn'); // a lean run starts in a local activity
  const modelCalls = events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel');
  expect(modelCalls).toHaveLength(3);

  // The worker closed its MCP clients when it shut down: the stdio server's process is gone.
  await waitUntil(`the stdio server (pid ${pid}) has exited`, () => !isAlive(pid));
});

test('stdio: a server that died is started again on the next use', async () => {
  const whoami = (id: string) => [{ toolCalls: [{ id, name: 'desk__whoami', arguments: {} }] }, { content: 'ok' }];
  const pidOf = (id: string) => Number(toolMessage(h.model.requests.at(-1)!.body, id));
  await h.withWorker(async () => {
    h.model.setScript(whoami('a'));
    const one = h.turnId('mcp-restart-1');
    await h.tiller.startTurn({ agent: 'desk-agent', input: 'who?', turnId: one });
    expect(await h.tiller.result(one)).toMatchObject({ status: 'completed' });
    const firstPid = pidOf('a');
    process.kill(firstPid, 'SIGKILL');
    await waitUntil('the killed server has exited', () => !isAlive(firstPid));

    h.model.setScript(whoami('b'));
    const two = h.turnId('mcp-restart-2');
    await h.tiller.startTurn({ agent: 'desk-agent', input: 'who?', turnId: two });
    expect(await h.tiller.result(two)).toMatchObject({ status: 'completed' });
    const secondPid = pidOf('b');
    expect(secondPid).toBeGreaterThan(0);
    expect(secondPid).not.toBe(firstPid);
  }, options());
});

test('http: a destructive MCP tool waits for approval and runs only once approved', async () => {
  h.model.setScript([
    { toolCalls: [{ id: 'd1', name: 'web__delete_ticket', arguments: { id: 'T-1' } }] },
    { content: 'deleted it' },
  ]);
  const turnId = h.turnId('mcp-destructive');
  const before = web.calls.length;
  const state = await h.withWorker(async () => {
    await h.tiller.startTurn({ agent: 'web-agent', input: 'delete T-1', turnId });
    const paused = await waitForState(h.tiller, turnId, awaitingApproval);
    expect(paused.pendingApprovals).toEqual([
      expect.objectContaining({ id: 'd1', tool: 'web__delete_ticket', args: { id: 'T-1' } }),
    ]);
    expect(web.calls.slice(before).filter((c) => c.tool === 'delete_ticket')).toEqual([]);
    await h.tiller.approve(turnId, 'd1', { approver: 'alice' });
    expect(await h.tiller.result(turnId)).toMatchObject({ status: 'completed', output: 'deleted it' });
    return h.tiller.state(turnId);
  }, options());
  expect(state.toolCalls).toEqual([
    expect.objectContaining({
      id: 'd1',
      name: 'web__delete_ticket',
      status: 'succeeded',
      result: 'deleted T-1',
      decision: expect.objectContaining({ approved: true, approver: 'alice' }),
    }),
  ]);
  // Called once, with the call's idempotency key in `_meta`.
  expect(web.calls.slice(before)).toEqual([
    { tool: 'delete_ticket', args: { id: 'T-1' }, meta: { 'tiller/idempotencyKey': `${turnId}:d1` } },
  ]);
  expect(toolMessage(h.model.requests.at(-1)!.body, 'd1')).toBe('deleted T-1');
});

test('http: an agent may run a destructive MCP tool without a gate when it says so (`approvals: { tool: false }`)', async () => {
  h.model.setScript([
    { toolCalls: [{ id: 'd2', name: 'web__delete_ticket', arguments: { id: 'T-2' } }] },
    { content: 'gone' },
  ]);
  const turnId = h.turnId('mcp-ungated');
  const before = web.calls.length;
  const result = await h.withWorker(async () => {
    await h.tiller.startTurn({ agent: 'trusting-agent', input: 'delete T-2', turnId });
    return h.tiller.result(turnId);
  }, options());
  expect(result).toMatchObject({ status: 'completed', output: 'gone' });
  expect(result.toolCalls).toEqual([expect.objectContaining({ id: 'd2', status: 'succeeded' })]);
  expect((await recordedSpec(turnId)).gates).toEqual({});
  expect(web.calls.slice(before).map((c) => c.tool)).toEqual(['delete_ticket']);
});

test('http: an MCP tool error becomes an error result and the turn goes on', async () => {
  h.model.setScript([
    { toolCalls: [{ id: 'x1', name: 'web__close_ticket', arguments: { id: 'T-1' } }] },
    { content: 'the desk is read-only, sorry' },
  ]);
  const turnId = h.turnId('mcp-error');
  const [result, state] = await h.withWorker(async () => {
    await h.tiller.startTurn({ agent: 'web-agent', input: 'close T-1', turnId });
    return [await h.tiller.result(turnId), await h.tiller.state(turnId)] as const;
  }, options());
  expect(result).toMatchObject({ status: 'completed', output: 'the desk is read-only, sorry' });
  const seen = toolMessage(h.model.requests.at(-1)!.body, 'x1');
  expect(seen).toBe('Error: web__close_ticket failed: the ticket desk is read-only today');
  expect(state.toolCalls).toEqual([
    expect.objectContaining({
      id: 'x1',
      status: 'failed',
      error: 'web__close_ticket failed: the ticket desk is read-only today',
    }),
  ]);
  expect(state.events.map((e) => e.type)).toContain('TOOL_FAILED');
});

test('http: arguments that break the MCP input schema are an error result; the server is not called', async () => {
  h.model.setScript([
    { toolCalls: [{ id: 'i1', name: 'web__create_ticket', arguments: { title: '', priority: 9 } }] },
    { toolCalls: [{ id: 'i2', name: 'web__create_ticket', arguments: { title: 'printer', priority: 5 } }] },
    { content: 'created' },
  ]);
  const turnId = h.turnId('mcp-invalid');
  const before = web.calls.length;
  const result = await h.withWorker(async () => {
    await h.tiller.startTurn({ agent: 'web-agent', input: 'open a ticket', turnId });
    return h.tiller.result(turnId);
  }, options());
  expect(result).toMatchObject({ status: 'completed', output: 'created' });
  const requests = h.model.requests.slice(-2);
  const invalid = toolMessage(requests[0]!.body, 'i1') as string;
  expect(invalid).toMatch(/^Error: invalid arguments for web__create_ticket: /);
  expect(invalid).toMatch(/title must NOT have fewer than 1 characters/);
  expect(invalid).toMatch(/priority must be <= 5/);
  expect(toolMessage(requests[1]!.body, 'i2')).toBe('created T-3: printer (5)');
  // Only the valid call reached the server.
  expect(web.calls.slice(before)).toEqual([
    expect.objectContaining({ tool: 'create_ticket', args: { title: 'printer', priority: 5 } }),
  ]);
});

test('an MCP server that cannot be reached when the turn starts fails it with a clear message', async () => {
  const turnId = h.turnId('mcp-dead');
  const first = h.model.requests.length;
  const result = await h.withWorker(async () => {
    await h.tiller.startTurn({ agent: 'dead-agent', input: 'anything', turnId });
    return h.tiller.result(turnId);
  }, options());
  expect(result.status).toBe('failed');
  expect(result.error).toBe(
    `could not start agent dead-agent: McpServerUnavailable: MCP server dead (${deadUrl}) is unreachable: TypeError: fetch failed`,
  );
  expect(h.model.requests.length).toBe(first);
});

test('http: MCP spec defaults: a tool is gated unless its server marks it read-only (and not also destructive)', async () => {
  h.model.setScript([
    {
      toolCalls: [
        { id: 'r1', name: 'web__list_tickets', arguments: {} },
        { id: 'c1', name: 'web__create_ticket', arguments: { title: 'printer', priority: 2 } },
        { id: 'w1', name: 'web__whoami', arguments: {} },
      ],
    },
    { content: 'done' },
  ]);
  const turnId = h.turnId('mcp-defaults');
  const before = web.calls.length;
  await h.withWorker(async () => {
    await h.tiller.startTurn({ agent: 'defaults-agent', input: 'go', turnId });
    const ended = (s: { status: string }) => ['completed', 'failed', 'cancelled'].includes(s.status);
    const settled = await waitForState(
      h.tiller,
      turnId,
      (s) =>
        ended(s) ||
        (s.pendingApprovals.length === 2 && s.toolCalls.some((c) => c.id === 'r1' && c.status === 'succeeded')),
    );
    expect(settled.status).toBe('awaiting_approval');
    expect(settled.pendingApprovals.map((p) => p.id).sort()).toEqual(['c1', 'w1']);
    // Nothing but the read-only tool reached the server.
    expect(web.calls.slice(before).map((c) => c.tool)).toEqual(['list_tickets']);
    await h.tiller.deny(turnId, 'c1', { approver: 'alice' });
    await h.tiller.deny(turnId, 'w1', { approver: 'alice' });
    expect(await h.tiller.result(turnId)).toMatchObject({ status: 'completed' });
  }, options());
  expect((await recordedSpec(turnId)).gates).toEqual({ web__create_ticket: {}, web__whoami: {} });
});

test('secrets in an MCP server URL and headers never reach history, state or the error', async () => {
  const turnId = h.turnId('mcp-vault');
  const [result, state] = await h.withWorker(async () => {
    await h.tiller.startTurn({ agent: 'vault-agent', input: 'anything', turnId });
    return [await h.tiller.result(turnId), await h.tiller.state(turnId)] as const;
  }, options());
  expect(result.status).toBe('failed');
  const port = new URL(deadUrl).port;
  expect(result.error).toMatch(
    `could not start agent vault-agent: McpServerUnavailable: MCP server vault (http://redacted@127.0.0.1:${port}/mcp?api_key=redacted&team=redacted) is unreachable: `,
  );
  const everything = [JSON.stringify(result), JSON.stringify(state), ...(await history(turnId)).map(eventText)].join(
    '\n',
  );
  expect(everything).toContain('MCP server vault');
  expect(everything).not.toMatch(/SECRET/);
});

describe('MCP mapping and configuration (no server needed)', () => {
  test('what the pool reports (and the worker logs) about a server never includes its secrets', async () => {
    const pool = new McpPool([{ name: 'vault', url: vaultUrl, headers: VAULT_HEADERS }]);
    try {
      const err: Error = await pool.listTools('vault').then(
        () => new Error('listed?'),
        (e: Error) => e,
      );
      expect(err.name).toBe('McpUnavailableError');
      expect(err.message).toMatch(
        /^MCP server vault \(http:\/\/redacted@127\.0\.0\.1:\d+\/mcp\?api_key=redacted&team=redacted\)/,
      );
      expect(`${err.message}\n${err.stack}`).not.toMatch(/SECRET/);
    } finally {
      await pool.close();
    }
  });

  test('annotations: gated unless read-only, and gated when a server says both read-only and destructive', () => {
    const tool = (annotations?: McpTool['annotations']): McpTool => ({
      name: 't',
      inputSchema: { type: 'object' },
      ...(annotations && { annotations }),
    });
    expect(gatedByDefault(tool())).toBe(true);
    expect(gatedByDefault(tool({ destructiveHint: true }))).toBe(true);
    expect(gatedByDefault(tool({ destructiveHint: false }))).toBe(true);
    expect(gatedByDefault(tool({ readOnlyHint: false }))).toBe(true);
    expect(gatedByDefault(tool({ destructiveHint: true, readOnlyHint: true }))).toBe(true);
    expect(gatedByDefault(tool({ readOnlyHint: true }))).toBe(false);
    expect(gatedByDefault(tool({ readOnlyHint: true, destructiveHint: false }))).toBe(false);
    const spec = (name: string) => ({ name, description: '', parameters: {} });
    expect(
      defaultMcpGates(
        [
          { spec: spec('s__a'), tool: tool({ destructiveHint: true }) },
          { spec: spec('s__b'), tool: tool({ destructiveHint: true }) },
          { spec: spec('s__c'), tool: tool({ destructiveHint: true }) },
        ],
        { s__b: false, s__c: { timeout: '1 hour' } },
      ),
    ).toEqual({ s__a: {} });
  });

  test('content blocks become the text the model reads', () => {
    expect(
      resultText({
        content: [
          { type: 'text', text: 'one' },
          { type: 'image', data: 'AAAA', mimeType: 'image/png' },
          { type: 'resource_link', uri: 'file:///x', name: 'x' },
          { type: 'resource', resource: { uri: 'file:///y', text: 'inline' } },
        ],
      }),
    ).toBe('one\n[image image/png, 4 base64 characters]\n[resource file:///x]\ninline');
    expect(resultText({ content: [], structuredContent: { n: 1 } })).toBe('{"n":1}');
  });

  test('names: `<server>__<tool>`, split at the first separator', () => {
    expect(splitQualifiedName('fs__read__file')).toEqual({ server: 'fs', tool: 'read__file' });
    expect(splitQualifiedName('read_file')).toBeUndefined();
    expect(splitQualifiedName('__x')).toBeUndefined();
  });

  test('configuration errors are caught at startup, with the entry and the reason', async () => {
    expect(() => parseMcpServers([{ name: 'a__b', command: 'node' }])).toThrow(/mcpServers\[0\] is invalid: name: /);
    expect(() => parseMcpServers([{ name: 'a', url: 'not a url' }])).toThrow(/mcpServers\[0\] is invalid: url: /);
    expect(() => parseMcpServers([{ name: 'a', comand: 'node' }])).toThrow(/mcpServers\[0\] is invalid/);
    expect(() =>
      parseMcpServers([
        { name: 'a', command: 'node' },
        { name: 'a', url: 'http://127.0.0.1/mcp' },
      ]),
    ).toThrow(/the name "a" is used twice/);
    await expect(h.worker({ agents: [deskAgent], mcpServers: [] })).rejects.toThrow(
      /agent desk-agent uses unconfigured MCP servers: desk/,
    );
    await expect(h.worker({ agents: [webAgent], mcpServers: [{ name: 'other', url: web.url }] })).rejects.toThrow(
      /agent web-agent uses unregistered tools: web__create_ticket, web__delete_ticket, web__close_ticket/,
    );
    expect(() =>
      defineAgent({ name: 'x', instructions: '', tools: [], mcp: ['fs'], approvals: { fs__rm: { timeout: '1h' } } }),
    ).not.toThrow();
    expect(() => defineAgent({ name: 'x', instructions: '', tools: [], approvals: { fs__rm: true } })).toThrow(
      /approval for fs__rm, which is not one of its tools/,
    );
  });
});
