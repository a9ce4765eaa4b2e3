/**
 * The failure converter of a worker that does not encrypt (`failureConverterPath`, the default Tiller
 * sets): Temporal's default, with every string well-formed (see ./failure-strings). Its module exports
 * only `failureConverter`, as `failureConverterPath` requires.
 */
import { WellFormedFailureConverter } from './failure-strings';

export const failureConverter = new WellFormedFailureConverter();
