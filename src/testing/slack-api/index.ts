/**
 * A stand-in for Slack on loopback, for tests and offline demos: the Web API methods Tiller calls
 * (`chat.postMessage`, `chat.update`, `views.open`) and the `response_url` of interactions, with
 * scripted faults (429 with `Retry-After`, 5xx, `ok: false`), plus the Slack side of interactivity:
 * clicks and modal submissions delivered to an app's interactivity URL, signed as Slack signs them.
 * Point `TILLER_SLACK_API_URL` (or `slackApiUrl`) at `url`.
 *
 * Modules: `api` (types), `server` (the Web API), `block-kit` (Slack's limits), `interactions`.
 *
 * @module
 */
export type {
  Fault,
  InteractionAnswer,
  OpenedView,
  RecordedCall,
  ResponsePost,
  SlackStandIn,
  SlackStandInOptions,
  StoredMessage,
} from './api';
export { startSlackApi } from './server';
export { checkBlocks, checkModal } from './block-kit';
