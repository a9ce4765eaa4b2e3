/**
 * Patch ids: one per change to workflow code that alters command order, checked with `patched(id)`
 * so turns started on older code replay their recorded path. Kept until no turn of that age can be
 * open; test/integration/versioning.test.ts and the replay test (test/unit/replay.test.ts) prove both paths.
 */

/** Since 0.2 every gated call's arguments are validated (an activity) before a human is asked. */
export const PATCH_VALIDATE_BEFORE_APPROVAL = 'validate-args-before-approval';

/** Since 0.3 model calls record `{count, digest}` of the conversation instead of the messages. */
export const PATCH_CONVERSATION_BY_REFERENCE = 'conversation-by-reference';

/** A call that waited for a human fires the `onApprovalResolved` hooks (an activity) once it is decided or expires. */
export const PATCH_APPROVAL_RESOLVED_HOOK = 'approval-resolved-hook';
