// Lint: typescript-eslint's recommended rules with type information, so that floating promises
// (a forgotten await on a store write or a reply) are errors.
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'node_modules/**',
      'generated/**',
      '**/generated/**',
      'tests/golden/fixtures/**',
      'data/**',
      'examples/conformance/suite/**',
      'bench/results/**',
      'test-artifacts/**',
      'dist/**',
    ],
  },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // node:test's test()/describe() return promises the runner itself awaits.
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            { from: 'package', package: 'node:test', name: ['test', 'describe', 'it', 'suite', 'before', 'after', 'beforeEach', 'afterEach'] },
          ],
        },
      ],
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // The framework's public surface is runtime/index.ts (servers) and runtime/client.ts (what a
    // generated client extends): the service, the examples, the benchmarks and the generator use
    // only those (the generator what it shares with the runtime from core/), so the runtime can
    // change inside without breaking them.
    files: ['app/**/*.ts', 'examples/**/*.ts', 'bench/**/*.ts', 'codegen/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/runtime/*', '!**/runtime/index.ts', '!**/runtime/client.ts'],
              message: 'Import the framework from runtime/index.ts (its public surface; runtime/client.ts for clients); export what you need there.',
            },
          ],
        },
      ],
    },
  },
  {
    // core/ is what the generator and the runtime both read (definition types, the framework error
    // table, URI templates, message templates, client configurations): it depends on neither.
    files: ['core/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/runtime/**', '**/codegen/**', '**/app/**', '**/generated/**'],
              message: 'core/ is shared by the generator and the runtime: it imports neither (nor the app or generated code).',
            },
          ],
        },
      ],
    },
  },
);
