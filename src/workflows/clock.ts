/**
 * The turn's clock: workflow time, except in the activation that resolves a local activity.
 *
 * Workflow time there is not replay-stable. Core resolves a local activity at its marker's completion
 * time — unless a query reached the worker while the resolution was pending: core then answers it,
 * completes the workflow task with the marker and forces a new task, and the workflow sees the
 * resolution at that new task's start. A replay has no query and resolves it at the completion time
 * (issue 34: AGENT_STARTED .447 on the worker that ran the turn, .223 on the one that replayed it —
 * the model's history shows the forced task). What follows a local activity in that activation reads
 * instead the time it was scheduled plus the duration it reported, both replay-stable.
 */
export class TurnClock {
  private held: { at: number; activation: number } | undefined;

  /** Milliseconds since the epoch; replay-stable. */
  now(): number {
    const workflowTime = Date.now();
    if (this.held?.activation === workflowTime) return this.held.at;
    // Another activation: workflow time comes from its task's start in history again.
    this.held = undefined;
    return workflowTime;
  }

  /** {@link now} as ISO-8601. */
  iso(): string {
    return new Date(this.now()).toISOString();
  }

  /**
   * Runs a local activity; the rest of the activation that resolves it reads its start plus
   * `reported(result)` (the duration the activity measured), or its start when it reports none or fails.
   */
  async local<T>(run: () => Promise<T>, reported?: (result: T) => number): Promise<T> {
    const startedAt = this.now();
    let result: T;
    try {
      result = await run();
    } catch (err) {
      this.hold(startedAt);
      throw err;
    }
    this.hold(startedAt + (reported?.(result) ?? 0));
    return result;
  }

  private hold(at: number): void {
    this.held = { at, activation: Date.now() };
  }
}
