/**
 * The recording as the candidate's tools: a call the recording made (same tool, same arguments, in
 * canonical JSON) is answered with its recorded result, each recorded call at most once; any other call
 * is divergent and answered by the stub. Nothing runs. Pure.
 */
import { canonicalJson } from '../core/digest';
import type { ToolCallRecord } from '../core/schemas';

/** How the candidate's call was answered. */
export type ToolAnswer =
  { kind: 'recorded'; recorded: ToolCallRecord; content: string } | { kind: 'divergent'; content: string };

/** What a call the recording did not make is answered with: default a fixed sentence. */
export type ToolStub = (call: { name: string; args: unknown }) => string;

/** The default answer to a call the recording did not make: a note that the tool was not run. */
export const DEFAULT_STUB: ToolStub = ({ name }) =>
  `[tiller eval] ${name} was not called in the recorded turn; no result is available.`;

/** The content the model read for a recorded call: its result, its denial, or its error. */
export function recordedContent(r: ToolCallRecord): string {
  if (r.result !== undefined) return r.result;
  if (r.error !== undefined) return r.error;
  if (r.status === 'denied') return `Tool call denied${r.decision?.reason ? `: ${r.decision.reason}` : ''}`;
  if (r.status === 'timed_out') return 'Tool call not approved in time';
  return '';
}

/** Answers the candidate's calls from a turn's recorded calls. */
export class RecordedTools {
  private readonly unused: ToolCallRecord[];

  constructor(
    recorded: readonly ToolCallRecord[],
    private readonly stub: ToolStub = DEFAULT_STUB,
  ) {
    this.unused = [...recorded];
  }

  /** The recorded call this one matches (first unused with the same tool and arguments), if any. */
  match(name: string, args: unknown): ToolCallRecord | undefined {
    const key = canonicalJson(args);
    const i = this.unused.findIndex((r) => r.name === name && canonicalJson(r.args) === key);
    return i < 0 ? undefined : this.unused.splice(i, 1)[0];
  }

  answer(name: string, args: unknown, matched: ToolCallRecord | undefined): ToolAnswer {
    if (matched) return { kind: 'recorded', recorded: matched, content: recordedContent(matched) };
    return { kind: 'divergent', content: this.stub({ name, args }).slice(0, 100_000) };
  }
}
