/**
 * Compiles the tools' JSON Schemas once: the loader validates them (strict mode, examples) and
 * the validators emitter turns the same compiled functions into standalone code. Compiling is
 * the generator's most expensive step, so it must not happen twice.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import standaloneModule from 'ajv/dist/standalone/index.js';
import addFormatsModule from 'ajv-formats';

const standalone = standaloneModule as unknown as (ajv: Ajv2020, refs: Record<string, string>) => string;
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

export function validatorName(typeName: string, kind: 'Arguments' | 'Result'): string {
  return `validate${typeName}${kind}`;
}

export class SchemaCompiler {
  readonly ajv = addFormats(
    new Ajv2020({
      code: { source: true, esm: true, lines: true, optimize: false },
      allErrors: true,
      strict: true,
      strictTypes: false,
      // The loader runs validateSchema itself first, to locate mistakes; addSchema need not repeat it.
      validateSchema: false,
    }),
  );
  /** Export name -> schema id, for the standalone module. */
  private readonly exports: Record<string, string> = {};

  /**
   * Compiles a schema under an id and export name. Throws ajv's error for a schema that breaks
   * strict mode; check it first with `ajv.validateSchema` to get located errors.
   */
  compile(schema: object, id: string, exportName: string): ValidateFunction {
    // YAML aliases make tools share schema objects; ajv needs one object per schema, or it emits
    // the same function twice.
    this.ajv.addSchema(structuredClone(schema), id);
    try {
      const validate = this.ajv.getSchema(id)!;
      this.exports[exportName] = id;
      return validate;
    } catch (err) {
      this.ajv.removeSchema(id);
      throw err;
    }
  }

  exportNames(): string[] {
    return Object.keys(this.exports).sort();
  }

  /** ESM source of the named compiled schemas (default: all), one export each. */
  standaloneCode(names: readonly string[] = this.exportNames()): string {
    return names.length ? standalone(this.ajv, Object.fromEntries(names.map((n) => [n, this.exports[n]!]))) : '';
  }
}
