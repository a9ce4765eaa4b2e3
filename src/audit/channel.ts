/**
 * Which channel a decision came through, from what history keeps of its request: the update id (the
 * gateway's and Slack's are `gateway:…` and `slack:…`), the approver (`webhook:…` from the gateway's
 * webhooks), and the client's identity — `tiller-cli:…` and `tiller-gateway:…` (set by Tiller's own
 * clients, {@link channelIdentity}), the Temporal CLI's own, none (the Temporal UI sends no identity),
 * else an SDK's (`pid@host`). Pure.
 */

/** Where a decision came from. */
export type Channel = 'cli' | 'gateway' | 'slack' | 'ui' | 'temporal-cli' | 'sdk' | 'trust' | 'hook' | 'timeout';

/** The client identity Tiller's own clients set, so audit can name their channel. */
export function channelIdentity(channel: 'cli' | 'gateway', pidAtHost: string): string {
  return `tiller-${channel}:${pidAtHost}`.slice(0, 200);
}

/** The channel of a human decision. */
export function channelOf(m: { updateId?: string; identity?: string; approver?: string }): Channel {
  if (m.updateId?.startsWith('slack:')) return 'slack';
  if (m.updateId?.startsWith('gateway:') || m.approver?.startsWith('webhook:')) return 'gateway';
  const id = m.identity ?? '';
  if (id.startsWith('tiller-gateway:')) return 'gateway';
  if (id.startsWith('tiller-cli:')) return 'cli';
  if (/^temporal-cli|tctl/i.test(id)) return 'temporal-cli';
  if (/web-?ui|temporal-ui/i.test(id)) return 'ui';
  // The Temporal UI's requests carry no identity (its signal form sends none; so does a bare call of the
  // HTTP API); every SDK and the Temporal CLI name themselves. `undefined`: no request was found.
  if (m.identity === '') return 'ui';
  return 'sdk';
}
