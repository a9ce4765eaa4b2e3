/**
 * The peer's turn: an OpenAI Agents SDK agent run by the official Temporal integration, with the same
 * instant tool as Tiller's bench (`step_tool`, an activity) and the same instructions.
 */
import { Agent } from '@openai/agents-core';
import { activityAsTool, TemporalOpenAIRunner } from '@temporalio/openai-agents/workflow';
import type * as activities from './activities';

export async function peerTurn(input: string, maxTurns: number): Promise<string> {
  const stepTool = activityAsTool<typeof activities.step_tool>(
    {
      name: 'step_tool',
      description: 'Returns at once.',
      parameters: {
        type: 'object',
        properties: { i: { type: 'integer' } },
        required: ['i'],
        additionalProperties: false,
      },
    },
    { startToCloseTimeout: '10 minutes', retryPolicy: { initialInterval: '1 second', maximumAttempts: 3 } },
  );
  const agent = new Agent({
    name: 'bench',
    instructions: 'You are a benchmark agent. Call the tools you are told to call.',
    model: 'scripted',
    tools: [stepTool],
  });
  const result = await new TemporalOpenAIRunner().run(agent, input, { maxTurns });
  return String(result.finalOutput ?? '');
}
