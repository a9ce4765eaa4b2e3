/**
 * Every environment variable Tiller reads, by where it is read — src/client/connect.ts (with
 * @temporalio/envconfig: the TEMPORAL_* connection variables), src/worker/model-env.ts (TILLER_MODEL,
 * TILLER_MODEL_API), docs/configuration.md,
 * src/cli/worker.ts (TILLER_WORKFLOW_BUNDLE, TILLER_LOG_LEVEL), src/tools/files.ts (TILLER_WORKSPACE),
 * src/activities/model-config.ts (OPENAI_*), src/codec/encryption.ts (TILLER_ENCRYPTION_KEYS),
 * src/observability/tracing.ts (OTEL_*; the OTLP exporter reads OTEL_EXPORTER_OTLP_*), src/cli/worker.ts
 * (TILLER_METRICS_ADDRESS), src/worker/plugin.ts (TILLER_WORKFLOW_CACHE_MB), src/gateway/env.ts
 * (TILLER_GATEWAY_*) and src/slack/common/config.ts (TILLER_SLACK_*). Keep it in step with docs/configuration.md
 * (test/unit/configuration.test.ts checks that page against the code) when a variable is added: the
 * worker's and the gateway's env must be subsets of it.
 */
export const PROJECT_ENV: ReadonlySet<string> = new Set([
  'TEMPORAL_ADDRESS',
  'TEMPORAL_NAMESPACE',
  'TEMPORAL_API_KEY',
  'TEMPORAL_TLS',
  'TEMPORAL_TLS_CLIENT_CERT_PATH',
  'TEMPORAL_TLS_CLIENT_KEY_PATH',
  'TEMPORAL_TLS_SERVER_CA_CERT_PATH',
  'TEMPORAL_TLS_SERVER_NAME',
  'TEMPORAL_TLS_CLIENT_CERT_DATA',
  'TEMPORAL_TLS_CLIENT_KEY_DATA',
  'TEMPORAL_TLS_SERVER_CA_CERT_DATA',
  'TEMPORAL_TLS_DISABLE_HOST_VERIFICATION',
  'TEMPORAL_PROFILE',
  'TEMPORAL_CONFIG_FILE',
  'TILLER_TASK_QUEUE',
  'OPENAI_API_KEY',
  'OPENAI_BASE_URL',
  'TILLER_MODEL',
  'TILLER_WORKSPACE',
  'TILLER_WORKFLOW_BUNDLE',
  'TILLER_LOG_LEVEL',
  'TILLER_ENCRYPTION_KEYS',
  'OTEL_TRACES_EXPORTER',
  'OTEL_EXPORTER_OTLP_ENDPOINT',
  'OTEL_SERVICE_NAME',
  'TILLER_METRICS_ADDRESS',
  'TILLER_WORKFLOW_CACHE_MB',
  ...[
    'TOKENS',
    'JWT_SECRET',
    'JWT_PUBLIC_KEY',
    'JWT_ALG',
    'JWT_ISSUER',
    'JWT_AUDIENCE',
    'JWT_SCOPES',
    'WEBHOOK_SECRET',
    'RATE_LIMIT',
    'BODY_LIMIT',
    'TRUST_PROXY',
    'UI_ORIGIN',
  ].map((v) => `TILLER_GATEWAY_${v}`),
  ...['BOT_TOKEN', 'CHANNEL', 'SIGNING_SECRET', 'APPROVERS', 'API_URL', 'SHOW_ARGS'].map((v) => `TILLER_SLACK_${v}`),
]);
