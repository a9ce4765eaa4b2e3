/**
 * Names every JavaScript object inherits (`obj['constructor']` is never undefined): as ids, tool names,
 * keys or indexes they find the prototype, not nothing, in any lookup by a plain object.
 */
export const PROTOTYPE_NAMES = [
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  'valueOf',
  '__defineGetter__',
];
