/**
 * The handler stubs' source, built with ts-morph's structures API: an import of the handler type
 * and `export const handler: <Type> = <initializer>`, documented by the item's summary. Only the
 * stubs to be written are built (a stub exists already: nothing to build), so that ts-morph is loaded
 * only by a run that creates one (ts-morph.ts). Prettier formats them afterwards (format.ts).
 */
import path from 'node:path';
import type { OutputFile } from './output.ts';
import { loadTsMorph, scratchProject } from './ts-morph.ts';

/** What a stub says, before it is source: one per tool, resource or prompt. */
export interface StubSpec {
  /** The handler file (absolute). */
  path: string;
  /** The handler type it imports and declares `handler` with: `CreateItemHandler`. */
  handlerType: string;
  /** Where that type is imported from, relative to the handler file. */
  typesModule: string;
  /** The one-line doc comment above `handler`. */
  summary: string;
  /** The value of `handler`, as source. */
  initializer: string;
}

/** A stub that is already on disk: never written again, so its source is not built. */
export function unbuiltStub(spec: StubSpec): OutputFile {
  return { path: spec.path, content: '', once: true, formatted: true };
}

/** The stubs' sources as write-once outputs (prettier formats them with the other outputs). */
export async function buildStubs(specs: readonly StubSpec[]): Promise<OutputFile[]> {
  if (!specs.length) return [];
  const { StructureKind, VariableDeclarationKind } = await loadTsMorph();
  const project = await scratchProject();
  return specs.map((spec) => {
    const file = project.createSourceFile(`/${path.basename(spec.path)}`, {
      statements: [
        { kind: StructureKind.ImportDeclaration, isTypeOnly: true, namedImports: [spec.handlerType], moduleSpecifier: spec.typesModule },
        // A blank line between the import and the code, as prettier keeps it and people write it.
        (writer) => writer.blankLine(),
        {
          kind: StructureKind.VariableStatement,
          isExported: true,
          declarationKind: VariableDeclarationKind.Const,
          docs: [spec.summary],
          declarations: [{ name: 'handler', type: spec.handlerType, initializer: spec.initializer }],
        },
      ],
    });
    const content = file.getFullText();
    project.removeSourceFile(file);
    return { path: spec.path, content, once: true };
  });
}
