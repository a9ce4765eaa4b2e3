/** The context window's calibration is used only when a provider could have counted it (src/core/context.ts). */
import { CALIBRATION_RATIO, estimateTokens, usableCalibration } from '../../src/core/context';

test('a calibration a provider could have counted is kept as it is', () => {
  expect(usableCalibration({ tokens: 1_000, chars: 4_100 })).toEqual({ tokens: 1_000, chars: 4_100 });
  expect(usableCalibration({ tokens: 300, chars: 100, extra: 'dropped' })).toEqual({ tokens: 300, chars: 100 });
});

test.each([
  ['absent', undefined],
  ['not an object', 'lots'],
  ['null', null],
  ['negative', { tokens: -1, chars: 100 }],
  ['zero', { tokens: 0, chars: 100 }],
  ['fractional', { tokens: 1.5, chars: 100 }],
  ['a string', { tokens: '10', chars: 100 }],
  ['past the safe integers', { tokens: 2 ** 60, chars: 2 ** 61 }],
  ['NaN', { tokens: Number.NaN, chars: 100 }],
  ['too few tokens a character', { tokens: 1, chars: 1e15 }],
  ['too many tokens a character', { tokens: 1e15, chars: 1 }],
])('a calibration %s is not used', (_label, c) => {
  expect(usableCalibration(c)).toBeUndefined();
});

test('the bounds: an estimate from a usable calibration is within 16 times the default either way', () => {
  const chars = 40_000;
  const fallback = estimateTokens(chars);
  const low = { tokens: Math.ceil(chars * CALIBRATION_RATIO.min), chars };
  const high = { tokens: chars * CALIBRATION_RATIO.max, chars };
  expect(usableCalibration(low)).toBeDefined();
  expect(usableCalibration(high)).toBeDefined();
  expect(estimateTokens(chars, low)).toBeGreaterThanOrEqual(fallback / 16);
  expect(estimateTokens(chars, high)).toBeLessThanOrEqual(fallback * 16);
});
