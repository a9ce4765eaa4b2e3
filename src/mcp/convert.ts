/**
 * MCP shapes → Tiller's: a listed tool becomes a `ToolSpec` (recorded in the turn's spec), its
 * annotations decide the default approval gate (by the MCP spec's defaults: gated unless read-only),
 * and a call's content becomes the text the model reads. Pure: no SDK runtime, no I/O.
 */
import type { GateSpec, McpToolOrigin, ToolSpec } from '../core/spec';
import { qualifiedName } from './names';

/** The parts of an MCP `Tool` (tools/list) that Tiller uses. */
export interface McpTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: { type: 'object'; [key: string]: unknown };
  annotations?: {
    title?: string;
    readOnlyHint?: boolean;
    destructiveHint?: boolean;
    idempotentHint?: boolean;
    openWorldHint?: boolean;
  };
}

/** One content block of a `tools/call` result (text, image, audio, resource link, embedded resource). */
export type McpContent =
  | { type: 'text'; text: string }
  | { type: 'image' | 'audio'; data: string; mimeType: string }
  | { type: 'resource_link'; uri: string; name?: string }
  | { type: 'resource'; resource: { uri: string; text?: string; blob?: string; mimeType?: string } }
  | { type: string; [key: string]: unknown };

export interface McpCallResult {
  content?: McpContent[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** JSON Schema for the model: the server's `inputSchema` without its `$schema` marker. */
export function mcpParameters(tool: McpTool): Record<string, unknown> {
  const { $schema: _ignored, ...schema } = tool.inputSchema;
  return schema;
}

export function mcpToolSpec(server: string, tool: McpTool): ToolSpec {
  const hints = tool.annotations ?? {};
  const annotations: NonNullable<McpToolOrigin['annotations']> = {
    ...(hints.readOnlyHint !== undefined && { readOnlyHint: hints.readOnlyHint }),
    ...(hints.destructiveHint !== undefined && { destructiveHint: hints.destructiveHint }),
    ...(hints.idempotentHint !== undefined && { idempotentHint: hints.idempotentHint }),
    ...(hints.openWorldHint !== undefined && { openWorldHint: hints.openWorldHint }),
  };
  return {
    name: qualifiedName(server, tool.name),
    description: tool.description ?? tool.title ?? hints.title ?? `${tool.name} (MCP server ${server})`,
    parameters: mcpParameters(tool),
    mcp: { server, tool: tool.name, ...(Object.keys(annotations).length > 0 && { annotations }) },
  };
}

/**
 * Whether a tool is gated unless its agent says otherwise, by the MCP spec's defaults
 * (`readOnlyHint: false`, `destructiveHint: true`): gated unless the server marks it read-only, and
 * gated when it marks it both read-only and destructive (contradictory hints count as the riskier).
 */
export function gatedByDefault(tool: McpTool): boolean {
  return tool.annotations?.readOnlyHint !== true || tool.annotations.destructiveHint === true;
}

/**
 * The gates an agent's MCP tools add to its spec: every tool gated by default gets a plain gate (no
 * deadline) unless the agent's `approvals` names it — with its own gate, or `false` to run it ungated.
 */
export function defaultMcpGates(
  tools: readonly { spec: ToolSpec; tool: McpTool }[],
  approvals: Readonly<Record<string, unknown>> = {},
): Record<string, GateSpec> {
  const gates: Record<string, GateSpec> = {};
  for (const { spec, tool } of tools) {
    if (gatedByDefault(tool) && approvals[spec.name] === undefined) gates[spec.name] = {};
  }
  return gates;
}

function blockToText(block: McpContent): string {
  switch (block.type) {
    case 'text':
      return String(block.text);
    case 'image':
    case 'audio':
      return `[${block.type} ${String(block.mimeType)}, ${String(block.data).length} base64 characters]`;
    case 'resource_link':
      return `[resource ${String(block.uri)}]`;
    case 'resource': {
      const resource = block.resource as { uri: string; text?: string };
      return resource.text ?? `[resource ${resource.uri}]`;
    }
    default:
      return `[${block.type} content]`;
  }
}

/** What the model reads from a call's result: its content blocks as text, else its structured content. */
export function resultText(result: McpCallResult): string {
  const blocks = result.content ?? [];
  if (blocks.length > 0) return blocks.map(blockToText).join('\n');
  return result.structuredContent !== undefined ? JSON.stringify(result.structuredContent) : '';
}
