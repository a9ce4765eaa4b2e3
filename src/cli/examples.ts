/** `--help` examples for every command, checked by test/unit/cli-help.test.ts. */
export const EXAMPLES: Record<string, string[]> = {
  worker: [
    'tiller worker                                   # the demo agent, scripted model unless OPENAI_API_KEY is set',
    'TILLER_METRICS_ADDRESS=0.0.0.0:9464 tiller worker   # with Prometheus metrics',
    'OTEL_TRACES_EXPORTER=otlp tiller worker         # with OpenTelemetry traces',
  ],
  dev: [
    'tiller dev                                      # dev server + worker, until Ctrl-C',
    'tiller dev --demo --db .tiller/dev.db',
  ],
  run: [
    'tiller run assistant "Read notes.txt, then delete it."',
    'tiller run assistant "Summarise notes.txt" --json | jq .type   # one JSON event per line',
  ],
  state: ['tiller state turn-1234', 'tiller state turn-1234 --json'],
  approve: ['tiller approve turn-1234 call_abc', 'tiller approve turn-1234 call_abc --scope session --as alice'],
  deny: ['tiller deny turn-1234 call_abc --reason "keep the file"'],
  pending: ['tiller pending', 'tiller pending --agent assistant --json'],
  send: ['tiller send support-42 "Read notes.txt"', 'tiller send support-42 "now delete it" --json'],
  session: ['tiller session support-42', 'tiller session support-42 --json'],
  'codec-server': ['TILLER_CODEC_TOKEN=... tiller codec-server --port 8888 --ui-origin http://localhost:8233'],
  serve: [
    'printf %s "$TOKEN" | tiller serve --hash-token',
    'TILLER_GATEWAY_TOKENS=\'[{"name":"alice","sha256":"<hex>","scopes":["read","decide","args"]}]\' tiller serve --port 8787',
  ],
  cancel: ['tiller cancel turn-1234', 'tiller cancel support-42     # a session and its running turn'],
  setup: ['TEMPORAL_ADDRESS=temporal:7233 tiller setup'],
  replay: [
    'tiller replay turn-1234 my-session          # these turns/sessions (latest run of each)',
    `tiller replay --query 'TillerStatus="awaiting_approval"'   # every turn waiting for a human`,
    'tiller replay --query \'ExecutionStatus="Running"\' --bundle new-workflows.js  # a build you are about to deploy',
  ],
};

export function examplesText(command: string): string | undefined {
  const lines = EXAMPLES[command];
  return lines && ['', 'Examples:', ...lines.map((l) => `  ${l}`)].join('\n');
}
