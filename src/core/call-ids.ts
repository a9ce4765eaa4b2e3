/**
 * Tool call ids unique within a turn: some OpenAI-compatible servers reuse ids across responses, and
 * state and approvals need unique ones (the model still gets its own id back in the tool message).
 */
export class CallIds {
  private readonly seen = new Set<string>();

  unique(id: string): string {
    let candidate = id;
    for (let n = 2; this.seen.has(candidate); n++) candidate = `${id}#${n}`;
    this.seen.add(candidate);
    return candidate;
  }
}
