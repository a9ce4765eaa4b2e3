/** `npm run capacity`'s command line: sizes, pieces, and a port the cluster can use — said in one line when not. */
import { OptionsError, parseOptions } from '../../scripts/capacity/options';

test('the full run measures in two interleaved pieces per batch, each as concurrent as a batch was', () => {
  const full = parseOptions([]);
  if (full === 'help') throw new Error('unexpected help');
  expect(full).toMatchObject({ pieces: 2, toolSteps: 480, lanes: 24, sessions: 32, port: 17233 });
  // A piece holds half the turns: 24 turns of 10 steps fill the 24 lanes; 16 sessions run at once.
  expect(full.toolSteps / full.stepsPerTurn / full.pieces).toBe(full.lanes);
  expect(full.sessions / full.pieces).toBe(16);
  const quick = parseOptions(['--quick', '--pieces', '3']);
  expect(quick).toMatchObject({ quick: true, pieces: 3 });
});

test('a port whose cluster ports cannot exist is refused before anything starts, naming the flags', () => {
  expect(() => parseOptions(['--port', '27233'])).toThrow(OptionsError);
  expect(() => parseOptions(['--port', '27233', '--gated', '0'])).toThrow(
    /^--gated: .*; --port: the frontend's port is at most 17336/,
  );
  expect(parseOptions(['--port', '17336'])).toMatchObject({ port: 17336 });
});
