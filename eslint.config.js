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
      'framework/template/**',
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
    // The outreach service and the examples are built on the framework as any project outside this
    // repository is: through the package `mcpyard` (runtime/index.ts) and `mcpyard/client`
    // (runtime/client.ts), the entries of framework/package.json's exports map, which
    // tsconfig.json's paths resolve here to the sources. Nothing of runtime/, core/ or codegen/ by path.
    files: ['app/**/*.ts', 'examples/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/runtime/**', '**/core/**', '**/codegen/**'],
              message: "Import the framework as a package: 'mcpyard' (its runtime) or 'mcpyard/client'; export what you need from runtime/index.ts.",
            },
          ],
        },
      ],
    },
  },
  {
    // The benchmarks' servers and the generator stay inside the repository: the benchmarks use the
    // runtime's public surface, the generator only what it shares with the runtime from core/.
    files: ['bench/**/*.ts', 'codegen/**/*.ts'],
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
