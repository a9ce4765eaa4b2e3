import stopTemporal from '../../support/global-teardown';

export default async function globalTeardown(): Promise<void> {
  await Promise.all([globalThis.__TILLER_LLAMA_SERVER__?.stop(), stopTemporal()]);
}
