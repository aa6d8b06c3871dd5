/**
 * Compiles the tools' JSON Schemas once: the loader validates them (strict mode, examples) and
 * the validators emitter turns the same compiled functions into standalone code. Compiling is
 * the generator's most expensive step, so it must not happen twice.
 *
 * Strictness is kept where it finds mistakes and dropped where it would refuse valid 2020-12:
 * an unknown keyword (`minLenght`, `requred`) is an error, found at its place with a "did you
 * mean"; `x-` annotations (`x-mcp-header`) are allowed; `required` naming a property declared
 * elsewhere (inside anyOf branches, if/then), open tuples (`prefixItems` without `minItems`) and
 * properties that also match a `patternProperties` are valid and compile. Keywords ajv would
 * ignore (`then` without `if`) come back as warnings.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { hint } from './did-you-mean.ts';
import { walkSchema } from './schema-walk.ts';
import { validatorModule, type ImportedValidator, type ModuleExport } from './standalone.ts';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

type Path = (string | number)[];

export function validatorName(typeName: string, kind: 'Arguments' | 'Result'): string {
  return `validate${typeName}${kind}`;
}

/** The export of a shared shape's validator (a shape cannot be named like a tool's types, so neither like its validators). */
export function sharedValidatorName(def: string): string {
  return `validate${def}`;
}

/** The id a tool's input or output schema is compiled under. */
export const toolSchemaId = (tool: string, kind: 'input' | 'output') => `/tools/${tool}/${kind}`;

/** Keywords of older drafts that 2020-12 replaced: writing one is a mistake a "did you mean" cannot see. */
const REPLACED: Record<string, string> = {
  additionalItems: 'in JSON Schema 2020-12 a tuple is prefixItems, and items then applies to the items after it',
};

/** A keyword that is an annotation for other tools, never a typo: OpenAPI-style `x-` extensions. */
export const isExtensionKeyword = (key: string) => key.startsWith('x-');

/** A mistake in a schema, relative to the schema's root. */
export interface SchemaProblem {
  path: Path;
  message: string;
}

export class SchemaCompiler {
  /** What ajv's strict mode said about the schema being compiled (it logs instead of throwing). */
  private strictNotes: string[] = [];
  readonly ajv = addFormats(
    new Ajv2020({
      // One optimization pass (ajv's default) and loops for long `required` and `enum` lists:
      // the same checks and errors, in about a sixth less code.
      code: { source: true, esm: true, lines: true, optimize: 1 },
      loopRequired: 2,
      loopEnum: 2,
      allErrors: true,
      // A $ref is a call of the referenced schema's own function, never a copy of its code: each
      // shared shape is compiled once, and every validator using it calls (imports) that one.
      inlineRefs: false,
      // 'log': ajv reports every finding of one schema, not just the first, and compile() sorts
      // them into errors and warnings. Unknown keywords are found by unknownKeywords() first.
      strictSchema: 'log',
      // Valid 2020-12 that strict mode refuses: `required` in an anyOf branch or an if/then
      // naming a property declared beside it, an open tuple, types left to a branch.
      strictRequired: false,
      strictTuples: false,
      strictTypes: false,
      allowMatchingProperties: true,
      logger: { log: () => {}, warn: (message: string) => this.strictNotes.push(message), error: () => {} },
      // The loader runs validateSchema itself first, to locate mistakes; addSchema need not repeat it.
      validateSchema: false,
    }),
  );
  constructor() {
    // A 2020-12 core keyword ajv resolves but does not declare (ajv-validator/ajv#1854), so
    // strict mode would call it unknown.
    this.ajv.addKeyword({ keyword: '$anchor', schemaType: 'string' });
  }

  /** Every keyword this compiler knows (2020-12 and ajv's few extras). */
  knownKeywords(): string[] {
    return Object.keys((this.ajv as unknown as { RULES: { keywords: Record<string, unknown> } }).RULES.keywords);
  }

  /**
   * Every key of every subschema that is no keyword: a typo, or a keyword of another draft.
   * ajv's strict mode finds them too, but one at a time and without saying where.
   */
  unknownKeywords(schema: object): SchemaProblem[] {
    const known = new Set(this.knownKeywords());
    const problems: SchemaProblem[] = [];
    walkSchema(schema, (node, at) => {
      for (const key of Object.keys(node))
        if (!known.has(key) && !isExtensionKeyword(key))
          problems.push({
            path: [...at, key],
            message:
              `unknown keyword ${key}` +
              (REPLACED[key] ? `: ${REPLACED[key]}` : hint(key, known) || '; a keyword of your own must start with x- (e.g. x-note)'),
          });
    });
    return problems;
  }

  /**
   * Compiles a schema under an id (another schema refers to it by that id). Throws ajv's error for
   * a schema it cannot compile (an unresolvable $ref, an unknown format); `warnings` are keywords
   * it would ignore.
   */
  compile(schema: object, id: string): { validate: ValidateFunction; warnings: string[] } {
    // A copy of its own: YAML aliases make tools share schema objects, and ajv needs one object
    // per schema, or it emits the same function twice.
    this.ajv.addSchema(withoutAnnotations(schema), id);
    this.strictNotes = [];
    try {
      const validate = this.ajv.getSchema(id)!;
      // Unknown keywords were reported by unknownKeywords() (x- ones are fine): the rest are
      // constructs ajv ignores, worth a warning but valid.
      const warnings = this.strictNotes.filter((n) => !/unknown keyword/.test(n)).map((n) => n.replace(/^strict mode: /, ''));
      return { validate, warnings: [...new Set(warnings)] };
    } catch (err) {
      this.ajv.removeSchema(id);
      throw err;
    }
  }

  /** ESM source of a module exporting compiled schemas, importing the `imported` ones it calls (see standalone.ts). */
  moduleCode(exports: readonly ModuleExport[], imported: readonly ImportedValidator[]): string {
    return validatorModule(this.ajv, exports, imported);
  }
}

/** Keywords that only annotate: validation ignores them, and the emitted code need not carry them. */
const ANNOTATIONS = new Set(['description', 'title', 'examples', '$comment']);

/**
 * A copy of a schema without its annotations (descriptions, titles, examples, `x-` extensions):
 * the standalone code embeds the schema objects its checks read (`properties`, for
 * `additionalProperties: false`), and descriptions were most of their size.
 */
function withoutAnnotations(schema: object): object {
  const copy = structuredClone(schema);
  walkSchema(copy, (node) => {
    for (const key of Object.keys(node)) if (ANNOTATIONS.has(key) || isExtensionKeyword(key)) delete node[key];
  });
  return copy;
}

/** The known format closest to a misspelled one, for ajv's "unknown format" error. */
export function formatHint(compiler: SchemaCompiler, format: string): string {
  return hint(format, Object.keys((compiler.ajv as unknown as { formats: Record<string, unknown> }).formats));
}
