/**
 * generated/validators.gen.js: ajv validators compiled ahead of time (standalone mode), so the
 * server compiles no schema at start. One export per tool input and output schema.
 */
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import standaloneModule from 'ajv/dist/standalone/index.js';
import addFormatsModule from 'ajv-formats';
import type { Model } from '../model.ts';
import { tsBanner, type OutputFile } from './output.ts';

const standalone = standaloneModule as unknown as (ajv: Ajv2020, refs: Record<string, string>) => string;
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

export function validatorName(typeName: string, kind: 'Arguments' | 'Result'): string {
  return `validate${typeName}${kind}`;
}

export function emitValidators(model: Model): OutputFile[] {
  const ajv = new Ajv2020({ code: { source: true, esm: true, lines: false }, allErrors: true, strict: true, strictTypes: false });
  addFormats(ajv);
  const refs: Record<string, string> = {};
  for (const tool of model.tools) {
    const base = `tools/${tool.name}`;
    // YAML aliases make tools share schema objects; ajv must see distinct ones or it emits duplicate functions.
    ajv.addSchema(structuredClone(tool.input), `${base}/input`);
    refs[validatorName(tool.typeName, 'Arguments')] = `${base}/input`;
    if (tool.output) {
      ajv.addSchema(structuredClone(tool.output), `${base}/output`);
      refs[validatorName(tool.typeName, 'Result')] = `${base}/output`;
    }
  }
  const names = Object.keys(refs).sort();
  const code = Object.keys(refs).length ? esmImports(standalone(ajv, refs)) : '';
  const js = `${tsBanner}// @ts-nocheck\n${code}\n`;
  const dts =
    `${tsBanner}import type { Validator } from '${model.paths.runtimeImport}/definition.ts';\n\n` +
    names.map((n) => `export declare const ${n}: Validator;\n`).join('');
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
  return imports + body.replace(/;(?=(const |function |export ))/g, ';\n');
}
