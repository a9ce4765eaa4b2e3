/** Activities of the Temporal baseline: a streamed model call with a constant-size request, instant tools. */
import { Context } from '@temporalio/activity';
import type OpenAI from 'openai';
import type { Recorder } from '../fixture';

export function baselineActivities(openai: OpenAI, resultBytes: number, rec: Recorder) {
  const result = 'r'.repeat(resultBytes);
  return {
    async baselineModel(input: string, k: number): Promise<string> {
      const stream = await openai.chat.completions.create({
        model: 'scripted',
        messages: [{ role: 'user', content: input }],
        stream: true,
        stream_options: { include_usage: true },
      });
      let text = '';
      for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
      return `${k}:${text.length}`;
    },
    async baselineTool(_k: number): Promise<string> {
      return result;
    },
    async baselineGatedTool(g: number): Promise<string> {
      rec.gatedStarted(`${Context.current().info.workflowExecution?.workflowId ?? ''}/${g}`, performance.now());
      return result;
    },
  };
}

export type BaselineActivities = ReturnType<typeof baselineActivities>;
