/** generated/types.gen.ts: one named type per shared shape ($defs), for handlers and the store to use. */
import path from 'node:path';
import type { Model } from '../load/model.ts';
import type { OutputFile } from './output.ts';
import { renderSource } from './ts-source.ts';

export function typesPath(model: Model): string {
  return path.join(model.paths.generated, 'types.gen.ts');
}

/** Nothing when the file declares no $defs. */
export function emitTypes(model: Model, declarations: Readonly<Record<string, string>>): OutputFile[] {
  if (!model.defs.length) return [];
  return [{ path: typesPath(model), content: renderSource(model.defs.map((d) => declarations[d.name]!)) }];
}
