/** How MCP tools are named to the model and in agent definitions: `<server>__<tool>`. Pure. */

export const MCP_SEPARATOR = '__';

export function qualifiedName(server: string, tool: string): string {
  return `${server}${MCP_SEPARATOR}${tool}`;
}

/** Splits `<server>__<tool>` at the first separator (server names never contain it). */
export function splitQualifiedName(name: string): { server: string; tool: string } | undefined {
  const at = name.indexOf(MCP_SEPARATOR);
  if (at <= 0 || at + MCP_SEPARATOR.length >= name.length) return undefined;
  return { server: name.slice(0, at), tool: name.slice(at + MCP_SEPARATOR.length) };
}

/** The OpenAI limit on function names; an MCP tool whose qualified name breaks it cannot be offered. */
export function isValidToolName(name: string): boolean {
  return /^[a-zA-Z0-9_-]{1,64}$/.test(name);
}
