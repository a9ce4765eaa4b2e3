/**
 * Text for Block Kit: Slack's escaping of `&`, `<`, `>` (so a model's text can never ping `<!channel>`
 * or forge a link), code blocks that a text cannot break out of, and lengths cut to Slack's limits
 * (a longer text makes Slack refuse the whole message).
 */

/** Slack's limits (https://api.slack.com/reference/block-kit/blocks). */
export const LIMITS = {
  headerText: 150,
  sectionText: 3_000,
  contextText: 2_000,
  buttonValue: 2_000,
  privateMetadata: 3_000,
  fallbackText: 3_000,
} as const;

export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** `text` cut to `max` characters, with `…` when cut. */
export function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, Math.max(0, max - 1))}…`;
}

/** Escaped, and cut (before escaping, so no entity is split) until the escaped text fits in `max`. */
export function fitEscaped(text: string, max: number): string {
  let raw = text;
  let out = escapeMrkdwn(raw);
  while (out.length > max) {
    raw = cut(raw, Math.max(1, Math.floor(Math.min(raw.length, max) * 0.9)));
    out = escapeMrkdwn(raw);
  }
  return out;
}

/** Inline code: escaped, no backticks inside, cut to `max` characters of text. */
export function inlineCode(text: string, max = 200): string {
  return `\`${fitEscaped(text.replace(/`/g, "'"), max)}\``;
}

/** Breaks every ``` with zero-width spaces, so a quoted text can neither open nor close a code block. */
const noFences = (text: string) => text.replace(/```/g, '`\u200b`\u200b`');

/** A code block holding `text` (escaped; a ``` inside cannot close it), at most `max` characters in all. */
export function codeBlock(text: string, max: number): string {
  const body = noFences(text);
  return `\`\`\`\n${fitEscaped(body, max - 8)}\n\`\`\``;
}

/** A one-paragraph block quote of `text` (line breaks become spaces), escaped and cut. */
export function quote(text: string, max: number): string {
  return `>${fitEscaped(noFences(text.replace(/\s+/g, ' ').trim()), max - 1)}`;
}

/** Slack's date formatting: shown in each reader's time zone, with the ISO time as fallback. */
export function slackDate(iso: string): string {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return escapeMrkdwn(iso);
  return `<!date^${Math.floor(ms / 1000)}^{date_short_pretty} at {time}|${new Date(ms).toISOString()}>`;
}
