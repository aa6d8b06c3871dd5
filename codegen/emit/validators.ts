/**
 * The ajv validators, compiled ahead of time (standalone mode), so the server compiles no schema
 * at start. Each compiled function is written once:
 * - generated/validators/defs/<Name>.gen.js: a shared shape's validator (`validate<Name>`);
 * - generated/validators/<tool>.gen.js: a tool's arguments validator and, with an output schema,
 *   its result validator, importing the validators of the shapes they use.
 */
import path from 'node:path';
import { sharedId, usedDefs, type Defs } from '../load/defs.ts';
import type { Model, ToolModel } from '../load/model.ts';
import { sharedValidatorName, toolSchemaId, validatorName } from '../load/schemas.ts';
import type { ImportedValidator } from '../load/standalone.ts';
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

/** The validator modules (compiled now, or from the cache), with their declarations. */
export async function emitValidators(model: Model): Promise<OutputFile[]> {
  const byName: Defs = Object.fromEntries(model.defs.map((d) => [d.name, d.schema]));
  /** The shared shapes' validators the schemas reach, as a module in `dir` imports them (it imports those it calls). */
  const shared = (dir: string, schemas: readonly unknown[]): ImportedValidator[] =>
    [...new Set(schemas.flatMap((s) => usedDefs(s, byName)))].sort().map((name) => ({
      name: sharedValidatorName(name),
      id: sharedId(name),
      from: `./${path.relative(dir, sharedPath(model, name)).split(path.sep).join('/')}`,
    }));
  const js = (code: string) => `${tsBanner}// @ts-nocheck\n${code}`;
  // Every module is compiled as it is asked for, then all are minified together (validator-modules.ts).
  const module = async (file: string, pending: Promise<string>): Promise<OutputFile> => ({ path: file, content: js(await pending) });
  const defs = model.defs.map((d) => {
    const file = sharedPath(model, d.name);
    const exports = [{ name: sharedValidatorName(d.name), id: sharedId(d.name) }];
    return module(file, model.validators.module(`$defs:${d.name}`, exports, shared(path.dirname(file), [d.schema])));
  });
  const tools = model.tools.flatMap((tool) => {
    const file = validatorsPath(model, tool);
    const exports = [
      { name: validatorName(tool.typeName, 'Arguments'), id: toolSchemaId(tool.name, 'input') },
      ...(tool.output ? [{ name: validatorName(tool.typeName, 'Result'), id: toolSchemaId(tool.name, 'output') }] : []),
    ];
    const dts =
      `${tsBanner}import type { Validator } from '${model.paths.runtimeImport}';\n\n` +
      exports.map((e) => `export declare const ${e.name}: Validator;\n`).join('');
    return [
      module(file, model.validators.module(`tools:${tool.name}`, exports, shared(path.dirname(file), [tool.input, tool.output ?? {}]))),
      { path: validatorsPath(model, tool, 'd.ts'), content: dts },
    ];
  });
  return Promise.all([...defs, ...tools]);
}
