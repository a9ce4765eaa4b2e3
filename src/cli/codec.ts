/** `tiller codec-server`: the codec endpoint for the Temporal UI / CLI when payloads are encrypted. */
import { AesGcmCodec, keysFromEnv } from '../codec/encryption';
import { buildCodecServer } from '../codec/server';
import { CliError, EXIT } from './errors';
import { untilSignal } from './worker';

export async function codecServerCommand(opts: { port: number; host: string; uiOrigin?: string }): Promise<number> {
  const keys = keysFromEnv();
  if (keys.length === 0) throw new CliError('set TILLER_ENCRYPTION_KEYS (id:base64key, newest first) to serve a codec');
  const token = process.env.TILLER_CODEC_TOKEN;
  if (!token) throw new CliError('set TILLER_CODEC_TOKEN: the codec server never runs without authentication');
  const app = await buildCodecServer({
    codec: new AesGcmCodec(keys),
    token,
    ...(opts.uiOrigin !== undefined && { uiOrigin: opts.uiOrigin }),
  });
  const url = await app.listen({ host: opts.host, port: opts.port });
  process.stdout.write(
    `codec server at ${url}/codec (keys: ${keys.map((k) => k.id).join(', ')}; CORS: ${opts.uiOrigin ?? 'none'})\n`,
  );
  await untilSignal();
  await app.close();
  return EXIT.ok;
}
