export default async function globalTeardown(): Promise<void> {
  await globalThis.__TILLER_DEV_SERVER__?.stop();
}
