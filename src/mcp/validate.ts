/**
 * Checks a call's arguments against the MCP tool's `inputSchema` (JSON Schema) before the server is
 * called, so invalid arguments reach the model as an error result like any tool's. Uses the MCP SDK's
 * own Ajv-based validator (`@modelcontextprotocol/sdk/validation/ajv`), the one its client uses for
 * output schemas.
 */
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';
import type { JsonSchemaType, JsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import type { McpTool } from './convert';

export type ArgsCheck = { type: 'valid' } | { type: 'invalid'; error: string };

export class McpArgsValidator {
  private readonly provider = new AjvJsonSchemaValidator();
  /** Compiled validators by the schema's JSON text: a server's tool list changes rarely. */
  private readonly compiled = new Map<string, (args: unknown) => ArgsCheck>();

  check(tool: McpTool, args: unknown): ArgsCheck {
    const { $schema: _ignored, ...schema } = tool.inputSchema;
    const key = JSON.stringify(schema);
    let validate = this.compiled.get(key);
    if (!validate) {
      validate = this.compile(schema);
      this.compiled.set(key, validate);
    }
    return validate(args);
  }

  private compile(schema: Record<string, unknown>): (args: unknown) => ArgsCheck {
    let validate: JsonSchemaValidator<unknown>;
    try {
      validate = this.provider.getValidator<unknown>(schema as JsonSchemaType);
    } catch {
      // A schema Ajv cannot compile: fall back to the checks every object schema implies and leave
      // the rest to the server, which validates too.
      return (args) => minimalCheck(schema, args);
    }
    return (args) => {
      const result = validate(args);
      return result.valid ? { type: 'valid' } : { type: 'invalid', error: result.errorMessage };
    };
  }
}

function minimalCheck(schema: Record<string, unknown>, args: unknown): ArgsCheck {
  if (!args || typeof args !== 'object' || Array.isArray(args))
    return { type: 'invalid', error: 'the arguments must be a JSON object' };
  const required = Array.isArray(schema.required) ? (schema.required as unknown[]) : [];
  const missing = required.filter((k): k is string => typeof k === 'string' && !(k in args));
  if (missing.length) return { type: 'invalid', error: `missing required argument(s): ${missing.join(', ')}` };
  return { type: 'valid' };
}
