/**
 * The inline decision prompt (node:readline) and a printer that keeps the prompt intact while
 * events keep arriving. One question at a time; a question can be withdrawn when another client
 * decides first.
 */
import readline from 'node:readline';

export type Choice = { type: 'approve'; scope: 'once' | 'turn' } | { type: 'deny'; reason?: string } | { type: 'wait' };

export const CHOICES = '[a]pprove once · approve for the [t]urn · [d]eny · [w]ait for another client';

/** Thrown by `ask` when the question was withdrawn (another client decided) or input closed. */
export class WithdrawnError extends Error {
  override readonly name = 'WithdrawnError';
}

export class Terminal {
  private rl: readline.Interface | undefined;
  private asking = false;
  private withdraw: (() => void) | undefined;
  private closed = false;

  constructor(
    private readonly input: NodeJS.ReadableStream,
    private readonly output: NodeJS.WritableStream,
    private readonly onInterrupt: () => void,
  ) {}

  private get iface(): readline.Interface {
    if (!this.rl) {
      this.rl = readline.createInterface({ input: this.input, output: this.output, terminal: true });
      this.rl.on('SIGINT', () => this.onInterrupt());
      this.rl.on('close', () => {
        this.closed = true;
        this.withdraw?.();
      });
    }
    return this.rl;
  }

  /** Prints a line above the open question (if any) and redraws it. */
  print(line: string): void {
    if (!this.asking || !this.rl) {
      this.output.write(`${line}\n`);
      return;
    }
    readline.clearLine(this.output as NodeJS.WriteStream, 0);
    readline.cursorTo(this.output as NodeJS.WriteStream, 0);
    this.output.write(`${line}\n`);
    this.rl.prompt(true);
  }

  private question(text: string): Promise<string> {
    if (this.closed) return Promise.reject(new WithdrawnError('input closed'));
    const rl = this.iface;
    return new Promise((resolve, reject) => {
      const abort = new AbortController();
      this.asking = true;
      const done = () => {
        this.asking = false;
        this.withdraw = undefined;
      };
      this.withdraw = () => {
        done();
        abort.abort(); // readline drops the question and what was typed so far
        reject(new WithdrawnError('withdrawn'));
      };
      rl.question(text, { signal: abort.signal }, (answer) => {
        done();
        resolve(answer.trim());
      });
    });
  }

  /** Asks for a decision until the answer is valid; rejects with `WithdrawnError` when `cancel` is called. */
  async ask(header: string): Promise<Choice> {
    this.print(header);
    for (;;) {
      const answer = (await this.question(`${CHOICES} > `)).toLowerCase();
      if (answer === 'a' || answer === 'approve') return { type: 'approve', scope: 'once' };
      if (answer === 't' || answer === 'turn') return { type: 'approve', scope: 'turn' };
      if (answer === 'w' || answer === 'wait') return { type: 'wait' };
      if (answer === 'd' || answer === 'deny') {
        const reason = await this.question('reason (empty for none) > ');
        return reason ? { type: 'deny', reason } : { type: 'deny' };
      }
      this.print('please answer a, t, d or w');
    }
  }

  /** Withdraws the open question, if any. */
  cancel(): void {
    this.withdraw?.();
  }

  close(): void {
    this.withdraw?.();
    this.rl?.close();
    this.rl = undefined;
  }
}
