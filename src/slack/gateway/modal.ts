/** The deny modal (views.open): asks for the reason the model reads; its submission carries the call. */
import { inlineCode, LIMITS } from '../common/mrkdwn';
import type { SlackView } from '../common/messages';
import { DENY_VIEW, encode, MAX_REASON, REASON_BLOCK, REASON_INPUT, type DenyMeta } from '../common/refs';

/** The modal for denying `meta.ref`; undefined when its metadata does not fit (then deny without one). */
export function denyModal(meta: DenyMeta): SlackView | undefined {
  let privateMetadata = encode(meta, LIMITS.privateMetadata);
  // Without the response URL the modal still works; only ephemeral answers are lost.
  if (privateMetadata === undefined && meta.where.responseUrl !== undefined) {
    const { responseUrl: _dropped, ...where } = meta.where;
    privateMetadata = encode({ ...meta, where }, LIMITS.privateMetadata);
  }
  if (privateMetadata === undefined) return undefined;
  return {
    type: 'modal',
    callback_id: DENY_VIEW,
    private_metadata: privateMetadata,
    title: { type: 'plain_text', text: 'Deny the call' },
    submit: { type: 'plain_text', text: 'Deny' },
    close: { type: 'plain_text', text: 'Cancel' },
    blocks: [
      {
        type: 'section',
        text: { type: 'mrkdwn', text: `Deny ${inlineCode(meta.ref.tool)}? The model reads your reason.` },
      },
      {
        type: 'input',
        block_id: REASON_BLOCK,
        optional: true,
        label: { type: 'plain_text', text: 'Reason' },
        element: {
          type: 'plain_text_input',
          action_id: REASON_INPUT,
          multiline: true,
          max_length: MAX_REASON,
          placeholder: { type: 'plain_text', text: 'Why not? (optional)' },
        },
      },
    ],
  };
}
