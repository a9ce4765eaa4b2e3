/** Two projects: `unit` needs nothing; `integration` and `e2e` share one real Temporal dev server per run. */
const ts = { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] };
const common = { testEnvironment: 'node', transform: ts, moduleFileExtensions: ['ts', 'js', 'json'] };

module.exports = {
  testTimeout: 120_000,
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
  ],
};
