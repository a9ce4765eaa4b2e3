/** The agents the fuzz worker runs: the demo assistant (streamed) and its non-streaming twin. */
import { assistant } from '../../../src/agents/assistant';
import { defineAgent } from '../../../src/agents/define';

export const STREAMED_AGENT = assistant.name;
export const UNARY_AGENT = 'assistant-unary';

export const FUZZ_AGENTS = [assistant, defineAgent({ ...assistant, name: UNARY_AGENT, stream: false })];

export const agentFor = (stream: boolean): string => (stream ? STREAMED_AGENT : UNARY_AGENT);
