/**
 * GenAI semantic-convention spans inside Tiller's activities: `chat <model>` around each model call
 * (`gen_ai.operation.name=chat`, provider, request model, input/output tokens, finish reason) and
 * `execute_tool <name>` around each tool call (`gen_ai.tool.name`, `gen_ai.tool.call.id`). Prompts,
 * arguments and results are never attributes: traces leave the encrypted boundary.
 * The same interceptor counts tokens on the worker's metric meter (`tiller_tokens`).
 */
import * as otel from '@opentelemetry/api';
import type { Context } from '@temporalio/activity';
import type { ActivityExecuteInput, ActivityInboundCallsInterceptor, Next } from '@temporalio/worker';
import type { ModelRequest, ModelResponse, RunToolRequest, RunToolResponse } from '../core/spec';

export class GenAiActivityInterceptor implements ActivityInboundCallsInterceptor {
  constructor(
    private readonly ctx: Context,
    private readonly tracer: otel.Tracer,
  ) {}

  async execute(input: ActivityExecuteInput, next: Next<ActivityInboundCallsInterceptor, 'execute'>): Promise<unknown> {
    const type = this.ctx.info.activityType;
    if (type === 'callModel') {
      const req = input.args[0] as ModelRequest;
      return this.span(
        `chat ${req.model}`,
        { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': req.model },
        async (span) => {
          const res = (await next(input)) as ModelResponse;
          span.setAttributes({
            'gen_ai.usage.input_tokens': res.usage.inputTokens,
            'gen_ai.usage.output_tokens': res.usage.outputTokens,
            ...(res.finishReason && { 'gen_ai.response.finish_reasons': [res.finishReason] }),
          });
          return res;
        },
      );
    }
    if (type === 'runTool') {
      const req = input.args[0] as RunToolRequest;
      const attrs = {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': req.tool,
        'gen_ai.tool.call.id': req.toolCallId,
      };
      return this.span(`execute_tool ${req.tool}`, attrs, async (span) => {
        const res = (await next(input)) as RunToolResponse;
        if (!res.ok) span.setStatus({ code: otel.SpanStatusCode.ERROR, message: 'the tool failed' });
        return res;
      });
    }
    return next(input);
  }

  private span<T>(name: string, attributes: otel.Attributes, fn: (span: otel.Span) => Promise<T>): Promise<T> {
    return this.tracer.startActiveSpan(
      name,
      {
        kind: otel.SpanKind.CLIENT,
        attributes: { 'gen_ai.provider.name': 'openai', 'gen_ai.system': 'openai', ...attributes },
      },
      async (span) => {
        try {
          return await fn(span);
        } catch (err) {
          span.setStatus({ code: otel.SpanStatusCode.ERROR, message: err instanceof Error ? err.name : 'error' });
          throw err;
        } finally {
          span.end();
        }
      },
    );
  }
}
