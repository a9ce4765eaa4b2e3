/**
 * Prototype pollution of the process the worker runs in: own properties that appear on the built-in
 * prototypes while a case runs (a hostile `__proto__` index or key reaching an assignment). Found
 * ones are reported and removed, so one case cannot poison the next.
 */
const PROTOTYPES: Record<string, object> = {
  'Object.prototype': Object.prototype,
  'Array.prototype': Array.prototype,
  'Function.prototype': Function.prototype,
  'String.prototype': String.prototype,
};

export type PrototypeSnapshot = Record<string, Set<string | symbol>>;

export function snapshotPrototypes(): PrototypeSnapshot {
  return Object.fromEntries(Object.entries(PROTOTYPES).map(([name, p]) => [name, new Set(Reflect.ownKeys(p))]));
}

/** Properties added since `before`, as `Array.prototype.id`; each is deleted again. */
export function takePollution(before: PrototypeSnapshot): string[] {
  const found: string[] = [];
  for (const [name, proto] of Object.entries(PROTOTYPES)) {
    for (const key of Reflect.ownKeys(proto)) {
      if (before[name]!.has(key)) continue;
      found.push(`${name}.${String(key)}`);
      delete (proto as Record<string | symbol, unknown>)[key];
    }
  }
  return found;
}
