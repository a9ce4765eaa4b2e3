/** The peer's tool: validates its arguments like Tiller's tools do, then returns at once. */
import { z } from 'zod';

const input = z.object({ i: z.number().int() });
let result = 'r'.repeat(200);

export function setResultBytes(n: number): void {
  result = 'r'.repeat(n);
}

export async function step_tool(args: { i: number }): Promise<string> {
  input.parse(args);
  return result;
}
