/**
 * The secured cluster's suite (`npm run test:cluster`): runs against the cluster `npm run cluster -- up`
 * left running (the real server on PostgreSQL, secured), one file at a time. Kept apart from jest.config.js:
 * it needs the production shape, not the dev server `npm test` starts.
 */
const path = require('node:path');

module.exports = {
  rootDir: path.resolve(__dirname, '../..'),
  testTimeout: 300_000,
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
  moduleFileExtensions: ['ts', 'js', 'json'],
  testMatch: ['<rootDir>/test/cluster/**/*.test.ts'],
  displayName: 'cluster',
};
