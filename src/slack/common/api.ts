/**
 * The Slack Web API calls Tiller makes, through `@slack/web-api`'s `WebClient`: post and update a
 * message, open a modal; plus the interaction's `response_url` for ephemeral answers (plain JSON POST).
 *
 * Retries are the WebClient's: a 429 waits its `Retry-After`, a 5xx or a network error is retried with
 * backoff, a few times (they must fit in the hook activity's one-minute attempt), then the call throws
 * and the hook records the failure. Error messages never carry the token.
 */
import { LogLevel, WebClient, type RetryOptions } from '@slack/web-api';
import { DEFAULT_SLACK_API_URL } from './config';
import type { SlackMessage, SlackView } from './messages';

/** About 15 s of retries at most (1 + 2 + 4 + 8 s), plus what `Retry-After` asks for. */
export const DEFAULT_SLACK_RETRY: RetryOptions = { retries: 4, factor: 2, minTimeout: 1_000, maxTimeout: 8_000 };

export interface SlackApiOptions {
  /** Bot token (`xoxb-…`). */
  token: string;
  /** Web API base URL (default `https://slack.com/api/`). */
  apiUrl?: string;
  /** The WebClient's retry policy (p-retry options); default `DEFAULT_SLACK_RETRY` (4 retries, 1–8 s apart). */
  retry?: RetryOptions;
  /** Deadline of one HTTP request (default 10 s). */
  timeoutMs?: number;
}

/** Where response URLs may point: Slack's hooks host, and the configured API's origin (a stand-in in tests). */
const SLACK_HOOKS_ORIGIN = 'https://hooks.slack.com';

export class SlackApi {
  readonly client: WebClient;
  private readonly token: string;
  private readonly responseOrigins: ReadonlySet<string>;
  private readonly timeoutMs: number;

  constructor(opts: SlackApiOptions) {
    const apiUrl = opts.apiUrl ?? DEFAULT_SLACK_API_URL;
    this.token = opts.token;
    this.timeoutMs = opts.timeoutMs ?? 10_000;
    this.client = new WebClient(opts.token, {
      slackApiUrl: apiUrl,
      retryConfig: opts.retry ?? DEFAULT_SLACK_RETRY,
      timeout: this.timeoutMs,
      logLevel: LogLevel.ERROR,
      // Only Web API methods: never a URL from a payload with the token on it.
      allowAbsoluteUrls: false,
    });
    this.responseOrigins = new Set([SLACK_HOOKS_ORIGIN, new URL(apiUrl).origin]);
  }

  /** Posts a message; returns its channel id and timestamp (what chat.update needs). */
  async postMessage(channel: string, message: SlackMessage): Promise<{ channel: string; ts: string }> {
    const res = await this.call('chat.postMessage', { channel, text: message.text, blocks: message.blocks });
    const { channel: id, ts } = res as { channel?: unknown; ts?: unknown };
    if (typeof id !== 'string' || typeof ts !== 'string')
      throw new Error('chat.postMessage answered without channel and ts');
    return { channel: id, ts };
  }

  async updateMessage(channel: string, ts: string, message: SlackMessage): Promise<void> {
    await this.call('chat.update', { channel, ts, text: message.text, blocks: message.blocks });
  }

  async openView(triggerId: string, view: SlackView): Promise<void> {
    await this.call('views.open', { trigger_id: triggerId, view });
  }

  /** Answers through an interaction's `response_url` (e.g. an ephemeral message to the clicker). */
  async respond(responseUrl: string, body: Record<string, unknown>): Promise<void> {
    let url: URL;
    try {
      url = new URL(responseUrl);
    } catch {
      throw new Error('the response_url is not a URL');
    }
    if (!this.responseOrigins.has(url.origin)) throw new Error(`response_url host ${url.host} is not Slack's`);
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      redirect: 'error',
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    await res.body?.cancel();
    if (!res.ok) throw new Error(`response_url answered ${res.status}`);
  }

  private async call(method: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
    try {
      return (await this.client.apiCall(method, args)) as unknown as Record<string, unknown>;
    } catch (err) {
      const text = err instanceof Error ? err.message : String(err);
      // No `cause`: the WebClient's error holds the request, whose headers carry the token.
      // eslint-disable-next-line preserve-caught-error
      throw new Error(`Slack ${method} failed: ${text.split(this.token).join('[token]')}`);
    }
  }
}
