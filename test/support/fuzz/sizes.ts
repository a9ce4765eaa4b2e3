/**
 * Sizes drawn uniformly: fast-check favours small values in its first runs, and a CI run of two
 * cases per class must still meet the big ones (a 20 000-deep array, a 1 MB field).
 */
import fc from 'fast-check';

export const size = (min: number, max: number): fc.Arbitrary<number> => fc.noBias(fc.integer({ min, max }));
