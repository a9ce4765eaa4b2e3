/**
 * `tiller serve`: the HTTP gateway (API, SSE, signed webhook, web inbox at /inbox). Identities and
 * limits come from the environment (see src/gateway/env.ts); `--hash-token` reads a token on stdin and
 * prints the SHA-256 to put in TILLER_GATEWAY_TOKENS.
 */
import os from 'node:os';
import { channelIdentity } from '../audit/channel';
import { TillerClient } from '../client';
import { connectClient, type TemporalSettings } from '../client/connect';
import { AesGcmCodec, keysFromEnv } from '../codec/encryption';
import { buildGateway, hashToken } from '../gateway';
import { GatewayConfigError, gatewayOptionsFromEnv } from '../gateway/env';
import { SlackConfigError, slackInteractionsFromEnv } from '../slack/common/config';
import { CliError, EXIT, unreachable } from './errors';
import { packageVersion } from './paths';
import { untilSignal } from './worker';

export interface ServeOptions {
  port: number;
  host: string;
  uiOrigin?: string;
  hashToken?: boolean;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

export async function serveCommand(settings: TemporalSettings, opts: ServeOptions): Promise<number> {
  if (opts.hashToken) {
    const token = await readStdin();
    if (!token)
      throw new CliError('pipe the token on stdin, e.g. `printf %s "$TOKEN" | npx tiller serve --hash-token`');
    process.stdout.write(`${hashToken(token)}\n`);
    return EXIT.ok;
  }
  let env;
  let slack;
  try {
    env = gatewayOptionsFromEnv();
    slack = slackInteractionsFromEnv();
  } catch (err) {
    if (err instanceof GatewayConfigError || err instanceof SlackConfigError) throw new CliError(err.message);
    throw err;
  }
  let tiller: TillerClient;
  try {
    const identity = channelIdentity('gateway', `${process.pid}@${os.hostname()}`);
    tiller = new TillerClient(await connectClient(settings, identity), settings.taskQueue);
  } catch (err) {
    throw unreachable(settings.address, err);
  }
  try {
    const keys = keysFromEnv();
    const app = await buildGateway({
      ...env,
      ...(opts.uiOrigin !== undefined && { uiOrigin: opts.uiOrigin }),
      ...(keys.length > 0 && { codec: new AesGcmCodec(keys) }),
      ...(slack && { slack }),
      tiller,
      version: packageVersion(),
    });
    const url = await app.listen({ host: opts.host, port: opts.port });
    const ids = env.identities;
    process.stdout.write(
      [
        `tiller gateway at ${url} (Temporal ${settings.address}, task queue ${settings.taskQueue})`,
        `  inbox ${url}/inbox · API ${url}/openapi.json`,
        `  identities: ${ids.tokens?.length ?? 0} token(s)${ids.jwt ? ', JWT' : ''}; webhook: ${env.webhookSecret ? 'on' : 'off'}; codec: ${keys.length ? `${url}/codec (${keys.length} key(s))` : 'off'}`,
        `  slack: ${slack ? `${url}/slack/interactions (${Object.keys(slack.approvers).length} approver(s))` : 'off'}`,
      ].join('\n') + '\n',
    );
    const signal = await untilSignal();
    process.stdout.write(`${signal}: stopping the gateway …\n`);
    await app.close();
    return EXIT.ok;
  } finally {
    await tiller.close();
  }
}
