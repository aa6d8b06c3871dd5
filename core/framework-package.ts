/**
 * The framework's npm package as code outside it imports it: generated code, the outreach app and
 * a new project made by `mcpyard init`. The package's `exports` map (framework/package.json) and,
 * in this repository, tsconfig.json's `paths` name the same entries; tests/unit/framework-package-manifest.test.ts
 * keeps the three in step.
 */
export const FRAMEWORK_PACKAGE = 'mcpyard';

/** The entries: the runtime's public surface (runtime/index.ts) and the typed client's base (runtime/client.ts). */
export const FRAMEWORK_IMPORTS = { runtime: FRAMEWORK_PACKAGE, client: `${FRAMEWORK_PACKAGE}/client` } as const;
