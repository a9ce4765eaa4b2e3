/**
 * `unit` needs nothing; `integration` (with test/e2e) shares one real Temporal dev server per run. `npm test`
 * runs those two. `real-model` (`npm run e2e:real-model`) runs turns against llama.cpp's llama-server with a
 * real open-weight model, which scripts/ensure-llama.js installs (a ~8 min build the first time).
 */
const ts = { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] };
const common = { testEnvironment: 'node', transform: ts, moduleFileExtensions: ['ts', 'js', 'json'] };

module.exports = {
  testTimeout: 120_000,
  // A failing test can leave a native Temporal worker wedged (the fuzz once did: a worker stopped by a
  // completion the core refused); the results are written by then, so end the run instead of waiting on
  // its handles until CI's limit.
  forceExit: true,
  reporters: ['default', '<rootDir>/test/support/summary-reporter.js'],
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/test/unit/**/*.test.ts'] },
    {
      ...common,
      displayName: 'integration',
      testMatch: ['<rootDir>/test/integration/**/*.test.ts', '<rootDir>/test/e2e/**/*.test.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
    },
    {
      ...common,
      displayName: 'real-model',
      testMatch: ['<rootDir>/test/real-model/**/*.test.ts'],
      globalSetup: '<rootDir>/test/real-model/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/real-model/support/global-teardown.ts',
    },
  ],
};
