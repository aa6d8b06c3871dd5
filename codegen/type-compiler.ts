/** JSON Schema -> TypeScript declarations of each tool, with json-schema-to-typescript. */
import { compile } from 'json-schema-to-typescript';

export interface TypeJob {
  name: string;
  typeName: string;
  input: object;
  output?: object;
}

/** The declarations of one tool: its Arguments type (and helpers), and its Result type if it has an output schema. */
export interface ToolTypes {
  args: string;
  result?: string;
}

async function schemaToType(schema: object, name: string): Promise<string> {
  const ts = await compile({ ...schema, title: undefined } as never, name, {
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

export async function compileToolTypes(jobs: readonly TypeJob[]): Promise<Record<string, ToolTypes>> {
  const out: Record<string, ToolTypes> = {};
  for (const job of jobs) {
    out[job.name] = {
      args: await schemaToType(job.input, `${job.typeName}Arguments`),
      ...(job.output && { result: await schemaToType(job.output, `${job.typeName}Result`) }),
    };
  }
  return out;
}
