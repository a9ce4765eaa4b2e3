import { sha256Hex } from './digest';

const MAX_ID = 64;

/**
 * Tool call ids unique and short within a turn: some OpenAI-compatible servers reuse ids across responses, and
 * state and approvals need unique ones (the model still gets its own id back in the tool message).
 */
export class CallIds {
  private readonly seen: Set<string>;

  /** `seen`: the ids an earlier run of the turn used (continue-as-new). */
  constructor(seen: readonly string[] = []) {
    this.seen = new Set(seen);
  }

  list(): string[] {
    return [...this.seen];
  }

  unique(modelId: string): string {
    // An id past the name bound (a hostile or broken model) is shortened, with a hash to keep it distinct.
    const id = modelId.length <= MAX_ID ? modelId : `${modelId.slice(0, 40)}~${sha256Hex(modelId).slice(0, 16)}`;
    let candidate = id;
    for (let n = 2; this.seen.has(candidate); n++) candidate = `${id}#${n}`;
    this.seen.add(candidate);
    return candidate;
  }
}
