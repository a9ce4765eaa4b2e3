/** The demo agent: reads files freely, deletes them only with a human's approval. */
import { defineAgent } from './define';

/** The demo agent `assistant`: `read_file` runs freely, `delete_file` waits for a human. */
export const assistant = defineAgent({
  name: 'assistant',
  instructions:
    'You are a careful assistant working on files in a workspace. Use read_file to look at files and ' +
    'delete_file only when the user asks for a deletion. Answer briefly.',
  tools: ['read_file', 'delete_file'],
  approvals: { delete_file: true },
});
