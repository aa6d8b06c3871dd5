/** generated/errors.gen.ts: the error catalog and the parameter types of every code. */
import type { Model, ParamType } from '../load/model.ts';
import type { OutputFile } from './output.ts';
import { literal, renderSource } from './ts-source.ts';
import path from 'node:path';

const TS_TYPE: Record<ParamType, string> = { string: 'string', number: 'number', integer: 'number' };

export function emitErrors(model: Model): OutputFile {
  const catalog = Object.fromEntries(
    model.errors.map((e) => [
      e.code,
      {
        message: e.message,
        surface: e.surface,
        ...(e.status !== undefined && { status: e.status }),
        ...(e.rpcCode !== undefined && { rpcCode: e.rpcCode }),
        params: e.params.map((p) => p.name),
      },
    ]),
  );
  const content = renderSource([
    {
      kind: 'import',
      isTypeOnly: true,
      moduleSpecifier: model.paths.runtimeImport,
      namedImports: ['ErrorCatalog'],
    },
    {
      kind: 'const',
      isExported: true,
      docs: ['Every error this server can produce, keyed by its stable code.'],
      declarations: [{ name: 'errorCatalog', type: 'ErrorCatalog', initializer: literal(catalog) }],
    },
    {
      kind: 'interface',
      isExported: true,
      name: 'ErrorParams',
      docs: ['The parameters each error message template takes.'],
      properties: model.errors.map((e) => ({
        name: e.code,
        type: e.params.length ? `{ ${e.params.map((p) => `${p.name}: ${TS_TYPE[p.type]}`).join('; ')} }` : 'Record<never, never>',
      })),
    },
    {
      kind: 'type',
      isExported: true,
      name: 'ErrorCode',
      type: model.errors.map((e) => `'${e.code}'`).join(' | ') || 'never',
    },
  ]);
  return { path: path.join(model.paths.generated, 'errors.gen.ts'), content };
}
