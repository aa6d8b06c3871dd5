/** generated/scopes.gen.ts: the scope catalog and the scopes each tool requires. */
import path from 'node:path';
import type { Model } from '../load/model.ts';
import type { OutputFile } from './output.ts';
import { literal, renderSource } from './ts-source.ts';

export function emitScopes(model: Model): OutputFile {
  const content = renderSource([
    {
      kind: 'import',
      isTypeOnly: true,
      moduleSpecifier: model.paths.runtimeImport,
      namedImports: ['ScopeDefinition'],
    },
    {
      kind: 'const',
      isExported: true,
      docs: ['Every OAuth scope the server knows; `default` scopes are pre-selected on the consent screen.'],
      declarations: [{ name: 'scopes', type: 'readonly ScopeDefinition[]', initializer: literal(model.scopes) }],
    },
    {
      kind: 'const',
      isExported: true,
      docs: ['The scopes a token needs to call each tool (all of them).'],
      declarations: [
        {
          name: 'toolScopes',
          type: 'Readonly<Record<string, readonly string[]>>',
          initializer: literal(Object.fromEntries(model.tools.map((t) => [t.name, t.scopes]))),
        },
      ],
    },
  ]);
  return { path: path.join(model.paths.generated, 'scopes.gen.ts'), content };
}
