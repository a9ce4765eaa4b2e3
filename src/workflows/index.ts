/** What the worker bundles: every workflow type Tiller registers. */
export { agentTurn } from './turn';
export { agentSession } from './session';
