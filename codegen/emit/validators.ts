/**
 * The ajv validators, compiled ahead of time (standalone mode), so the server compiles no schema
 * at start. Each compiled function is written once:
 * - generated/validators/defs/<Name>.gen.js: a shared shape's validator (`validate<Name>`);
 * - generated/validators/<tool>.gen.js: a tool's arguments validator and, with an output schema,
 *   its result validator, importing the validators of the shapes they use.
 */
import path from 'node:path';
import { transformSync } from 'esbuild';
import { sharedId } from '../defs.ts';
import type { Model, ToolModel } from '../model.ts';
import { sharedValidatorName, toolSchemaId, validatorName } from '../schemas.ts';
import type { ImportedValidator } from '../standalone.ts';
import { tsBanner, type OutputFile } from './output.ts';

export function validatorsPath(model: Model, tool: ToolModel, ext: 'js' | 'd.ts' = 'js'): string {
  return path.join(model.paths.generated, 'validators', `${tool.name}.gen.${ext}`);
}

/** The module of a shared shape's validator. */
function sharedPath(model: Model, def: string): string {
  return path.join(model.paths.generated, 'validators', 'defs', `${def}.gen.js`);
}

/** The validator exports of a tool. */
export function toolValidators(tool: ToolModel): string[] {
  return [validatorName(tool.typeName, 'Arguments'), ...(tool.output ? [validatorName(tool.typeName, 'Result')] : [])];
}

export function emitValidators(model: Model): OutputFile[] {
  /** The shared shapes' validators, as a module in `dir` imports them. */
  const shared = (dir: string, except?: string): ImportedValidator[] =>
    model.defs
      .filter((d) => d.name !== except)
      .map((d) => ({
        name: sharedValidatorName(d.name),
        id: sharedId(d.name),
        from: `./${path.relative(dir, sharedPath(model, d.name)).split(path.sep).join('/')}`,
      }));
  const js = (code: string) => `${tsBanner}// @ts-nocheck\n${minifyValidator(code)}`;
  const defs = model.defs.map((d): OutputFile => {
    const file = sharedPath(model, d.name);
    return {
      path: file,
      content: js(model.schemas.moduleCode([{ name: sharedValidatorName(d.name), id: sharedId(d.name) }], shared(path.dirname(file), d.name))),
    };
  });
  const tools = model.tools.flatMap((tool) => {
    const file = validatorsPath(model, tool);
    const exports = [
      { name: validatorName(tool.typeName, 'Arguments'), id: toolSchemaId(tool.name, 'input') },
      ...(tool.output ? [{ name: validatorName(tool.typeName, 'Result'), id: toolSchemaId(tool.name, 'output') }] : []),
    ];
    const dts =
      `${tsBanner}import type { Validator } from '../${model.paths.runtimeImport}/index.ts';\n\n` +
      exports.map((e) => `export declare const ${e.name}: Validator;\n`).join('');
    return [
      { path: file, content: js(model.schemas.moduleCode(exports, shared(path.dirname(file)))) },
      { path: validatorsPath(model, tool, 'd.ts'), content: dts },
    ];
  });
  return [...defs, ...tools];
}

/**
 * A validator module minified (whitespace, syntax and local names, by esbuild): machine code nobody
 * reads or edits, and ajv writes it with a line per statement and long names, most of generated/
 * (224 of 371 KB before, 149 after). The output depends only on the module's own code and esbuild's
 * version, so it is as deterministic and as stable as the code: the modules of unchanged tools stay
 * byte for byte. Export names, property names and string literals (ajv's error messages, instance
 * paths) are kept.
 */
export function minifyValidator(code: string): string {
  return transformSync(code, { loader: 'js', format: 'esm', minify: true, legalComments: 'none', target: 'es2022' }).code;
}
