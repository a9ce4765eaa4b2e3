/**
 * The model's text in `tiller run`, as it streams: `delta`s become whole lines under a `│` gutter, a
 * partial line waits for its newline (or for the call's end), and a `discard` (the attempt failed and
 * is retried) says that what was shown of that attempt is void. Pure, so it is unit-tested.
 */
import type { LiveTextEvent } from '../core/live-text';

const GUTTER = '  │ ';
/** A line without a newline this long is printed anyway, so a long paragraph still streams. */
const MAX_PENDING = 160;

export class LiveTextPrinter {
  private pending = '';
  private shown = false;
  /** Whether the call that ended last (see {@link flush}) had any of its text shown. */
  lastCallShown = false;

  /** Lines to print for a live text event. */
  feed(e: LiveTextEvent): string[] {
    if (e.type === 'discard') {
      const had = this.shown || this.pending !== '';
      this.pending = '';
      this.shown = false;
      return had ? [`  ↺ model call ${e.call} is retried (attempt ${e.attempt + 1}); the text above is void`] : [];
    }
    this.pending += (e.skipped ? '…' : '') + e.text;
    const lines: string[] = [];
    let nl: number;
    while ((nl = this.pending.indexOf('\n')) >= 0) {
      lines.push(this.pending.slice(0, nl));
      this.pending = this.pending.slice(nl + 1);
    }
    if (this.pending.length >= MAX_PENDING) {
      const cut = this.pending.lastIndexOf(' ', MAX_PENDING);
      const at = cut > 0 ? cut + 1 : this.pending.length;
      lines.push(this.pending.slice(0, at).trimEnd());
      this.pending = this.pending.slice(at);
    }
    return this.print(lines);
  }

  /** The call ended: its last partial line, if any. */
  flush(): string[] {
    const rest = this.pending;
    this.lastCallShown = this.shown || rest !== '';
    this.pending = '';
    this.shown = false;
    return rest.trim() ? [GUTTER + rest] : [];
  }

  private print(lines: string[]): string[] {
    if (lines.length) this.shown = true;
    return lines.map((l) => GUTTER + l);
  }
}
