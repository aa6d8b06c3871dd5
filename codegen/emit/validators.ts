/**
 * generated/validators.gen.js: ajv validators compiled ahead of time (standalone mode), so the
 * server compiles no schema at start. One export per tool input and output schema.
 */
import path from 'node:path';
import type { Model } from '../model.ts';
import { tsBanner, type OutputFile } from './output.ts';

export function emitValidators(model: Model): OutputFile[] {
  const code = model.schemas.standaloneCode();
  const js = `${tsBanner}// @ts-nocheck\n${code ? esmImports(code) : ''}\n`;
  const dts =
    `${tsBanner}import type { Validator } from '${model.paths.runtimeImport}/definition.ts';\n\n` +
    model.schemas
      .exportNames()
      .map((n) => `export declare const ${n}: Validator;\n`)
      .join('');
  return [
    { path: path.join(model.paths.generated, 'validators.gen.js'), content: js },
    { path: path.join(model.paths.generated, 'validators.gen.d.ts'), content: dts },
  ];
}

/** ajv's ESM output still `require`s its runtime helpers; turn those into imports. */
function esmImports(code: string): string {
  const modules = new Map<string, string>();
  const body = code.replace(/^"use strict";/, '').replace(/require\("([^"]+)"\)/g, (_, mod: string) => {
    const spec = mod.endsWith('.js') ? mod : `${mod}.js`;
    if (!modules.has(spec)) modules.set(spec, `runtime${modules.size}`);
    return modules.get(spec)!;
  });
  const imports = [...modules].map(([spec, name]) => `import ${name} from ${JSON.stringify(spec)};\n`).join('');
  // The code stays as ajv wrote it: splitting it into lines by pattern could cut through a string literal.
  return imports + body;
}
