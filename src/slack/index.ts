/**
 * Approve and deny from Slack: the worker posts approval requests and keeps them up to date
 * (`slackApprovals`, a hook), the gateway takes the clicks (`buildGateway({ slack })`,
 * POST /slack/interactions). Configuration from the environment in ./config.ts.
 */
export { slackApprovals, SlackReceipt, type SlackApprovalsOptions } from './hooks';
export { SlackApi, DEFAULT_SLACK_RETRY, type SlackApiOptions } from './api';
export { SlackApprovers, type SlackApprover, type SlackApproverMapInput } from './approvers';
export {
  slackPostingFromEnv,
  slackInteractionsFromEnv,
  SlackConfigError,
  DEFAULT_SLACK_API_URL,
  type SlackPostingConfig,
  type SlackInteractionsConfig,
  type SlackGatewayOptions,
} from './config';
export { signSlackRequest, SlackRequestVerifier, SLACK_SIGNATURE_HEADER, SLACK_TIMESTAMP_HEADER } from './signing';
export { pendingMessage, resolvedMessage, type SlackMessage, type CallFacts } from './messages';
