/**
 * The one worker a fuzz run shares, and the canary that proves it still works after each case: a
 * plain turn must complete. A case that breaks the worker for every later turn (a polluted workflow
 * sandbox, say) is charged with it, and the worker is replaced so the next case starts clean.
 */
import type { Worker } from '@temporalio/worker';
import type { Harness } from '../harness';
import { FUZZ_AGENTS, STREAMED_AGENT } from './agents';
import type { ModelRouter } from './router';
import { turnInput } from './router';
import { errorText, settle } from './turn-probe';

const CANARY_MS = 15_000;

export class FuzzWorker {
  private worker: Worker | undefined;
  private running: Promise<void> | undefined;
  restarts = 0;

  constructor(
    private readonly h: Harness,
    private readonly router: ModelRouter,
  ) {}

  async start(): Promise<void> {
    this.worker = await this.h.worker({ agents: FUZZ_AGENTS });
    this.running = this.worker.run();
  }

  async stop(): Promise<void> {
    if (!this.worker) return;
    if (this.worker.getState() === 'RUNNING') this.worker.shutdown();
    await this.running?.catch(() => undefined);
    this.worker = undefined;
  }

  /** I6: a plain turn still completes on this worker; if not, the worker is replaced. */
  async canary(): Promise<string[]> {
    const turnId = this.h.turnId('fuzz-canary');
    this.router.route(turnId, [{ content: 'canary ok' }]);
    let problem: string | undefined;
    try {
      await this.h.tiller.startTurn({ agent: STREAMED_AGENT, input: turnInput(turnId), turnId });
      const settled = await settle(this.h.client, turnId, CANARY_MS);
      if (settled.kind !== 'closed' || settled.status !== 'COMPLETED') {
        problem = settled.kind === 'closed' ? settled.status : settled.kind;
      }
    } catch (err) {
      problem = errorText(err);
    } finally {
      this.router.forget(turnId);
      await this.h.client.workflow
        .getHandle(turnId)
        .terminate('fuzz canary over')
        .catch(() => undefined);
    }
    if (problem === undefined && this.worker?.getState() === 'RUNNING') return [];
    const why = problem ?? `the worker is ${this.worker?.getState()}`;
    await this.stop();
    await this.start();
    this.restarts++;
    return [`I6 after this case a plain turn no longer completes on the worker (${why}); worker replaced`];
  }
}
