/** Activities of the Temporal baseline: a streamed model call with a constant-size request, an instant tool. */
import type OpenAI from 'openai';

export function baselineActivities(openai: OpenAI, resultBytes: number) {
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
  };
}

export type BaselineActivities = ReturnType<typeof baselineActivities>;
