/**
 * What `npm run gen` warns about without failing: fields without a description (found by the
 * loader, with their position) and schema constructs that common clients mishandle.
 */
import path from 'node:path';
import type { Model } from '../load/model.ts';
import { lintPortability } from './portability.ts';

/** One line per warning, `file:line:col: warning: ...` where the position is known. */
export function generatorWarnings(model: Model): string[] {
  const file = path.relative(process.cwd(), model.paths.source) || model.paths.source;
  const lines = model.warnings.map((w) => `${file}:${w.line}:${w.col}: warning: ${w.message}`);
  if (!model.lint.portability) return lines;
  const allowed = new Set(model.lint.allow.map((a) => `${a.tool}\0${a.path}\0${a.rule}`));
  const used = new Set<string>();
  // Each tool's findings kept per change of the tool or the shared shapes it inlines (tool-parts.ts).
  const findings = model.tools.flatMap((t) => model.parts.of('portability', t, ['defs'], () => lintPortability([t])));
  for (const f of findings) {
    const key = `${f.tool}\0${f.path}\0${f.rule}`;
    if (allowed.has(key)) {
      used.add(key);
      continue;
    }
    const place = `tool ${f.tool}, ${f.schema === 'input' ? 'argument' : 'result field'} ${f.path}`;
    lines.push(`${file}: ${f.severity}: ${place}: [${f.rule}] ${f.message}`);
  }
  for (const a of model.lint.allow)
    if (!used.has(`${a.tool}\0${a.path}\0${a.rule}`))
      lines.push(`${file}: warning: codegen.lint.allow lists ${a.rule} at tool ${a.tool}, ${a.path}, which no longer occurs; remove the entry`);
  return lines;
}
