import tseslint from 'typescript-eslint';
import { builtinModules } from 'node:module';

// Workflows must stay deterministic: no Node built-ins, no I/O modules, no src/ code that does I/O.
const banned = [
  ...builtinModules,
  ...builtinModules.map((m) => `node:${m}`),
  'pg',
  'knex',
  'minio',
  'koa',
  '@koa/router',
  'pino',
  '@temporalio/client',
  '@temporalio/worker',
  '@temporalio/activity',
];

export default tseslint.config(
  {
    ignores: [
      'node_modules/**',
      'dist/**',
      'clients/typescript/dist/**',
      'clients/typescript/src/schema.ts',
      '.data/**',
      'bin/**',
      'scripts/**',
      'eslint.config.mjs',
      'test/support/reporter.js',
    ],
  },
  ...tseslint.configs.recommended,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', ignoreRestSiblings: true }],
    },
  },
  {
    // A CLI command loads its heavy modules when it runs (test/unit/cli-start-up.test.ts), with a
    // typed require(): the CLI runs under tsx's require hook, which serves no import() of a .ts file.
    files: ['src/cli/**/*.ts'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: banned.map((name) => ({
            name,
            message: 'Workflows are deterministic: reach the world through activities.',
          })),
          patterns: [
            {
              group: ['../src/**', '../src', '../../src/**', '../../src'],
              message: 'Workflows may not import src/ modules (they do I/O).',
            },
          ],
        },
      ],
    },
  },
);
