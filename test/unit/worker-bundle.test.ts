/** Which prebuilt workflow bundle `tiller worker` runs, with tracing on and off. */
import { chooseBundle, encryptedBundlePath, tracedBundlePath } from '../../src/cli/worker';

const only =
  (...files: string[]) =>
  (f: string) =>
    files.includes(f);

test('the traced twin sits next to the plain bundle', () => {
  expect(tracedBundlePath('/app/dist/workflow-bundle.js')).toBe('/app/dist/workflow-bundle.traced.js');
  expect(tracedBundlePath('bundle')).toBe('bundle.traced.js');
});

test('no bundle configured: bundle at start', () => {
  expect(chooseBundle(undefined, false)).toEqual({});
  expect(chooseBundle(undefined, true)).toEqual({});
});

test('tracing off: the plain bundle', () => {
  expect(chooseBundle('/b/w.js', false, only())).toEqual({ codePath: '/b/w.js' });
});

test('tracing on: the twin when it exists, else bundle at start and say why', () => {
  expect(chooseBundle('/b/w.js', true, only('/b/w.traced.js'))).toEqual({ codePath: '/b/w.traced.js' });
  const fallback = chooseBundle('/b/w.js', true, only('/b/w.js'));
  expect(fallback.codePath).toBeUndefined();
  expect(fallback.note).toMatch(/\/b\/w\.traced\.js does not exist/);
});

test('encryption on: the encrypting twin (traced too) when it exists, else bundle at start and say why', () => {
  expect(encryptedBundlePath('/b/w.js')).toBe('/b/w.encrypted.js');
  expect(chooseBundle('/b/w.js', false, only('/b/w.encrypted.js'), true)).toEqual({ codePath: '/b/w.encrypted.js' });
  expect(chooseBundle('/b/w.js', true, only('/b/w.traced.encrypted.js'), true)).toEqual({
    codePath: '/b/w.traced.encrypted.js',
  });
  const fallback = chooseBundle('/b/w.js', true, only('/b/w.js', '/b/w.traced.js'), true);
  expect(fallback.codePath).toBeUndefined();
  expect(fallback.note).toMatch(/tracing and encryption are on but \/b\/w\.traced\.encrypted\.js does not exist/);
});
