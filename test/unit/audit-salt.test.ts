/**
 * The audit salts a turn's argument digests as the turn did (src/audit/rows.ts): it reads the patch ids
 * in the turn's history, so its list must name the workflow's own ids — a lean run (`lean-turn`) salts
 * without a `salted-args-digest` marker of its own (CI caught the audit reading it unsalted), and so
 * does an at-cost run (`approvals-at-cost`) and a run of the current version (`window-in-model-call`).
 */
import { SALTED_PATCHES } from '../../src/audit/rows';
import {
  PATCH_AT_COST,
  PATCH_LEAN_TURN,
  PATCH_SALTED_ARGS_DIGEST,
  PATCH_WINDOW_IN_MODEL_CALL,
} from '../../src/workflows/patches';

test('the patches that salt digests are the workflow’s own ids', () => {
  expect(SALTED_PATCHES).toEqual([
    PATCH_SALTED_ARGS_DIGEST,
    PATCH_LEAN_TURN,
    PATCH_AT_COST,
    PATCH_WINDOW_IN_MODEL_CALL,
  ]);
});
