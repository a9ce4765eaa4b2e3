/**
 * Approve and deny from Slack, in folders by where the code runs:
 * - `worker/`: the hook that posts approval requests and keeps them up to date (`slackApprovals`);
 * - `gateway/`: the clicks and the deny modal (`buildGateway({ slack })`, POST /slack/interactions),
 *   checked against Slack's signature;
 * - `common/`: what both use: the Web API client, the messages, the approver map, the configuration
 *   from the environment (./common/config.ts).
 */
export { slackApprovals, SlackReceipt, type SlackApprovalsOptions } from './worker/hooks';
export { SlackApi, DEFAULT_SLACK_RETRY, type SlackApiOptions } from './common/api';
export { SlackApprovers, type SlackApprover, type SlackApproverMapInput } from './common/approvers';
export {
  slackPostingFromEnv,
  slackInteractionsFromEnv,
  SlackConfigError,
  DEFAULT_SLACK_API_URL,
  type SlackPostingConfig,
  type SlackInteractionsConfig,
  type SlackGatewayOptions,
} from './common/config';
export {
  signSlackRequest,
  SlackRequestVerifier,
  SLACK_SIGNATURE_HEADER,
  SLACK_TIMESTAMP_HEADER,
} from './gateway/signing';
export { pendingMessage, resolvedMessage, type SlackMessage, type CallFacts } from './common/messages';
