/**
 * JSON Schema -> TypeScript declarations with json-schema-to-typescript. It is the slowest
 * emitter, so `TypeWorker` runs it on a worker thread while the main thread validates the file
 * and compiles the validators; `compileToolTypes` is the same work in-thread.
 */
import { compile } from 'json-schema-to-typescript';
import { Worker } from 'node:worker_threads';

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

/** A worker thread started early (it loads its modules while the main thread parses the YAML). */
export class TypeWorker {
  private readonly worker = new Worker(new URL('./type-worker-entry.mjs', import.meta.url));

  compile(jobs: readonly TypeJob[]): Promise<Record<string, ToolTypes>> {
    return new Promise((resolve, reject) => {
      this.worker.once('message', (m: { types?: Record<string, ToolTypes>; error?: string }) =>
        m.error !== undefined ? reject(new Error(m.error)) : resolve(m.types!),
      );
      this.worker.once('error', reject);
      this.worker.postMessage(jobs);
    });
  }

  async stop(): Promise<void> {
    await this.worker.terminate();
  }
}
