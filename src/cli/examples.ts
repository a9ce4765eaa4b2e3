/** `--help` examples for every command, checked by test/unit/cli-help.test.ts. */
export const EXAMPLES: Record<string, string[]> = {
  worker: [
    'npx tiller worker                                   # the demo agent, scripted model unless OPENAI_API_KEY is set',
    'TILLER_METRICS_ADDRESS=0.0.0.0:9464 npx tiller worker   # with Prometheus metrics',
    'OTEL_TRACES_EXPORTER=otlp npx tiller worker         # with OpenTelemetry traces',
  ],
  dev: [
    'npx tiller dev                                      # dev server + worker, until Ctrl-C',
    'npx tiller dev --demo --db .tiller/dev.db',
  ],
  run: [
    'npx tiller run assistant "Read notes.txt, then delete it."',
    'npx tiller run assistant "Summarise notes.txt" --json | jq .type   # one JSON event per line',
  ],
  state: ['npx tiller state turn-1234', 'npx tiller state turn-1234 --json'],
  approve: [
    'npx tiller approve turn-1234 call_abc',
    'npx tiller approve turn-1234 call_abc --scope session --as alice',
    "npx tiller approve turn-1234 call_abc --group dba        # a gate with approvers: ['group:dba']",
  ],
  deny: ['npx tiller deny turn-1234 call_abc --reason "keep the file"'],
  pending: ['npx tiller pending', 'npx tiller pending --agent assistant --json'],
  send: ['npx tiller send support-42 "Read notes.txt"', 'npx tiller send support-42 "now delete it" --json'],
  session: ['npx tiller session support-42', 'npx tiller session support-42 --json'],
  'codec-server': ['TILLER_CODEC_TOKEN=... npx tiller codec-server --port 8888 --ui-origin http://localhost:8233'],
  serve: [
    'printf %s "$TOKEN" | npx tiller serve --hash-token',
    'TILLER_GATEWAY_TOKENS=\'[{"name":"alice","sha256":"<hex>","scopes":["read","decide","args"]}]\' npx tiller serve --port 8787',
  ],
  cancel: ['npx tiller cancel turn-1234', 'npx tiller cancel support-42     # a session and its running turn'],
  temporal: [
    'npx tiller temporal workflow list --query \'TillerStatus="awaiting_approval"\'',
    'npx tiller temporal workflow describe --workflow-id turn-1234',
  ],
  setup: ['TEMPORAL_ADDRESS=temporal:7233 npx tiller setup'],
  bundle: [
    'npx tiller bundle workflow-bundle.js                         # the plain bundle',
    'npx tiller bundle workflow-bundle.js --traced --encrypted    # and its twins for tracing and encryption',
  ],
  replay: [
    'npx tiller replay turn-1234 my-session          # these turns/sessions (latest run of each)',
    `npx tiller replay --query 'TillerStatus="awaiting_approval"'   # every turn waiting for a human`,
    'npx tiller replay --query \'ExecutionStatus="Running"\' --bundle new-workflows.js  # a build you are about to deploy',
  ],
};

export function examplesText(command: string): string | undefined {
  const lines = EXAMPLES[command];
  return lines && ['', 'Examples:', ...lines.map((l) => `  ${l}`)].join('\n');
}
