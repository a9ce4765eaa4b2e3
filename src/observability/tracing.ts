/**
 * OpenTelemetry tracing for workers, chosen by the standard env: `OTEL_TRACES_EXPORTER`
 * (`otlp` | `console` | `none`, default none: off), `OTEL_EXPORTER_OTLP_ENDPOINT` /
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` (read by the OTLP exporter itself), `OTEL_SERVICE_NAME`.
 *
 * Spans come from `@temporalio/interceptors-opentelemetry`: the workflow interceptors (one trace per
 * turn: `RunWorkflow:agentTurn`, `StartActivity:*`, …, exported through the `exporter` sink) and the
 * activity interceptors (`RunActivity:*`, children of the workflow's span). Tiller adds a GenAI
 * semantic-convention span inside each model and tool activity (see genai.ts).
 */
import * as otel from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { Resource } from '@opentelemetry/resources';
import {
  BatchSpanProcessor,
  ConsoleSpanExporter,
  SimpleSpanProcessor,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import {
  makeWorkflowExporter,
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry/lib/worker';
import type { WorkerOptions } from '@temporalio/worker';
import { GenAiActivityInterceptor } from './genai';

/**
 * The workflow interceptor module to bundle (the Tiller plugin adds it when the worker bundles, and to
 * `bundleWorkflowCode({ plugins: [tillerPlugin] })`; other prebuilt bundles must include it).
 */
export const WORKFLOW_TRACING_MODULE =
  require.resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors');

/** A worker's OpenTelemetry tracing: its tracer, resource and span processor ({@link createTracing}). */
export interface Tracing {
  tracer: otel.Tracer;
  resource: Resource;
  processor: SpanProcessor;
  /** Flushes and stops the exporter. */
  shutdown(): Promise<void>;
}

/** Tracing with this processor (tests pass a SimpleSpanProcessor over an InMemorySpanExporter). */
export function createTracing(processor: SpanProcessor, serviceName = 'tiller-worker'): Tracing {
  const resource = new Resource({ 'service.name': serviceName });
  const provider = new NodeTracerProvider({ resource, spanProcessors: [processor] });
  // The W3C propagator and an AsyncLocalStorage context manager: trace context crosses the
  // workflow/activity boundary in headers and follows async calls inside activities.
  provider.register();
  return { tracer: provider.getTracer('tiller'), resource, processor, shutdown: () => provider.shutdown() };
}

/** From `OTEL_*`; undefined when tracing is off. */
export function tracingFromEnv(env: NodeJS.ProcessEnv = process.env): Tracing | undefined {
  const kind = (env.OTEL_TRACES_EXPORTER ?? 'none').split(',')[0]!.trim().toLowerCase();
  if (kind === 'none' || kind === '') return undefined;
  const processor =
    kind === 'console'
      ? new SimpleSpanProcessor(new ConsoleSpanExporter())
      : kind === 'otlp'
        ? new BatchSpanProcessor(new OTLPTraceExporter())
        : undefined;
  if (!processor) throw new Error(`OTEL_TRACES_EXPORTER=${kind}: Tiller supports otlp, console and none`);
  return createTracing(processor, env.OTEL_SERVICE_NAME || 'tiller-worker');
}

/** Worker options that turn tracing on: interceptors, the workflow interceptor module, the span sink. */
export function tracingWorkerOptions(tracing: Tracing): Pick<WorkerOptions, 'interceptors' | 'sinks'> {
  const options = { tracer: tracing.tracer };
  return {
    interceptors: {
      workflowModules: [WORKFLOW_TRACING_MODULE],
      activity: [
        (ctx) => ({
          inbound: new OpenTelemetryActivityInboundInterceptor(ctx, options),
          outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
        }),
        (ctx) => ({ inbound: new GenAiActivityInterceptor(ctx, tracing.tracer) }),
      ],
    },
    sinks: { exporter: makeWorkflowExporter(tracing.processor, tracing.resource) },
  };
}
