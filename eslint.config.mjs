// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { builtinModules } from 'node:module';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];
// The browser globals the web inbox uses (the `globals` package is not a dependency of this project).
const browserGlobals = [
  'AbortController',
  'TextDecoder',
  'document',
  'fetch',
  'sessionStorage',
  'setInterval',
  'setTimeout',
];

/** The rules of code that runs in the workflow sandbox; `activities`: src/activities as its files name it. */
const sandboxRules = (activities) => ({
  'no-restricted-imports': [
    'error',
    {
      paths: nodeBuiltins.map((name) => ({ name, message: 'Node built-ins are not allowed in workflow code.' })),
      patterns: [
        { group: ['openai', 'openai/*'], message: 'The model client runs in activities only.' },
        {
          group: ['@temporalio/worker', '@temporalio/client', '@temporalio/activity'],
          message: 'Not in workflow code.',
        },
        { group: [`${activities}/*`, activities], message: 'Import activities as types only.', allowTypeImports: true },
      ],
    },
  ],
  'no-restricted-globals': ['error', { name: 'setTimeout', message: 'Use sleep() from @temporalio/workflow.' }],
  'no-restricted-properties': ['error', { object: 'Math', property: 'random', message: 'Not deterministic.' }],
});

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      '.tools/**',
      'coverage/**',
      'test-artifacts/**',
      'workspace/**',
      'test/fixtures/bundles/**',
      'scripts/bench/peer/node_modules/**',
      'docs/api/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // Workflow code runs in Temporal's deterministic sandbox: no I/O, no Node built-ins, no activity code.
    files: ['src/workflows/**/*.ts', 'src/core/**/*.ts'],
    rules: sandboxRules('../activities'),
  },
  {
    // The same one folder further down (src/workflows/desk/, src/core/spec/, …), where src/activities is
    // `../../activities` (and `../activities` is src/workflows/activities.ts, the activity proxies).
    files: ['src/workflows/*/**/*.ts', 'src/core/*/**/*.ts'],
    rules: sandboxRules('../../activities'),
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    ignores: ['src/gateway/inbox/**'],
    languageOptions: {
      globals: {
        require: 'readonly',
        module: 'writable',
        process: 'readonly',
        __dirname: 'readonly',
        console: 'readonly',
      },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // The web inbox's script runs in the browser as ES modules (served by src/gateway/inbox).
    files: ['src/gateway/inbox/**/*.js'],
    languageOptions: {
      sourceType: 'module',
      globals: Object.fromEntries(browserGlobals.map((name) => [name, 'readonly'])),
    },
  },
);
