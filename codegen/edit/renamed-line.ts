/**
 * What gen prints for a handler it moved. A file of its own, free of imports: the CLI's fast path
 * (a run answered from its record) loads it without loading the generator.
 */
import path from 'node:path';

const rel = (p: string) => path.relative(process.cwd(), p) || p;

/** `renamed app/tools/old.ts -> app/tools/new.ts (tool renamed in tools.yaml)` */
export function renamedLine(rename: { kind: string; from: string; to: string }, toolsYaml: string): string {
  return `renamed ${rel(rename.from)} -> ${rel(rename.to)} (${rename.kind} renamed in ${rel(toolsYaml)})`;
}
