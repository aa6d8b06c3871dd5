/**
 * generated/validators/<tool>.gen.js: a tool's ajv validators compiled ahead of time (standalone
 * mode), so the server compiles no schema at start; one file per tool, exporting its arguments
 * validator and, with an output schema, its result validator.
 */
import path from 'node:path';
import type { Model, ToolModel } from '../model.ts';
import { validatorName } from '../schemas.ts';
import { tsBanner, type OutputFile } from './output.ts';

export function validatorsPath(model: Model, tool: ToolModel, ext: 'js' | 'd.ts' = 'js'): string {
  return path.join(model.paths.generated, 'validators', `${tool.name}.gen.${ext}`);
}

/** The validator exports of a tool. */
export function toolValidators(tool: ToolModel): string[] {
  return [validatorName(tool.typeName, 'Arguments'), ...(tool.output ? [validatorName(tool.typeName, 'Result')] : [])];
}

export function emitValidators(model: Model): OutputFile[] {
  return model.tools.flatMap((tool) => {
    const names = toolValidators(tool);
    const js = `${tsBanner}// @ts-nocheck\n${esmImports(model.schemas.standaloneCode(names))}\n`;
    const dts =
      `${tsBanner}import type { Validator } from '../${model.paths.runtimeImport}/index.ts';\n\n` +
      names.map((n) => `export declare const ${n}: Validator;\n`).join('');
    return [
      { path: validatorsPath(model, tool), content: js },
      { path: validatorsPath(model, tool, 'd.ts'), content: dts },
    ];
  });
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
  return imports + body;
}
