/**
 * JSON Schema -> TypeScript declarations, with json-schema-to-typescript. A `$ref` to a shared
 * shape becomes its named type (declared once, in types.gen.ts), not a copy of its structure.
 */
import { compile } from 'json-schema-to-typescript';
import { replaceRefs } from './defs.ts';
import type { JSONSchema } from './json-schema.ts';

export interface TypeJob {
  name: string;
  typeName: string;
  input: JSONSchema;
  output?: JSONSchema;
}

/** The declarations of one tool: its Arguments type (and helpers), and its Result type if it has an output schema. */
export interface ToolTypes {
  args: string;
  result?: string;
}

/** What the generator compiles: every tool's types, and one declaration per shared shape. */
export interface CompiledTypes {
  tools: Record<string, ToolTypes>;
  defs: Record<string, string>;
}

/** json-schema-to-typescript's `tsType` keyword names the type to use instead of compiling a subschema. */
const namedRefs = (schema: JSONSchema) => replaceRefs(schema, (name, siblings) => ({ ...siblings, tsType: name }));

export async function schemaToType(schema: JSONSchema, name: string): Promise<string> {
  const ts = await compile({ ...namedRefs(schema), title: undefined } as never, name, {
    bannerComment: '',
    format: false,
    additionalProperties: false,
    strictIndexSignatures: true,
    // minItems/maxItems would become tuple unions (maxItems: 50 -> 51 tuple types); the validators enforce them.
    ignoreMinAndMaxItems: true,
    declareExternallyReferenced: true,
    unreachableDefinitions: false,
    $refOptions: { resolve: { external: false } } as never,
  });
  return ts.trim();
}

export async function compileTypes(jobs: readonly TypeJob[], defs: readonly { name: string; schema: JSONSchema }[]): Promise<CompiledTypes> {
  const tools: Record<string, ToolTypes> = {};
  for (const job of jobs) {
    tools[job.name] = {
      args: await schemaToType(job.input, `${job.typeName}Arguments`),
      ...(job.output && { result: await schemaToType(job.output, `${job.typeName}Result`) }),
    };
  }
  const compiledDefs: Record<string, string> = {};
  for (const def of defs) compiledDefs[def.name] = await schemaToType(def.schema, def.name);
  return { tools, defs: compiledDefs };
}
