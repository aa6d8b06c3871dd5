/**
 * Moves a handler file to its tool's (resource's, prompt's) new name with ts-morph: the imports of
 * the old item's generated types point at the new item's, and each old type name (`OldHandler`,
 * `OldArguments`, ...) becomes the new one wherever the file uses it. Everything else in the file
 * is the person's and stays byte for byte. The new file is created, never overwritten, and only
 * then is the old one removed.
 */
import { readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadTsMorph, scratchProject } from '../emit/ts-morph.ts';
import type { Rename } from './renames.ts';

/** A module specifier's target without its extension: './x.gen.ts', './x.gen.js' and './x.gen' are one file. */
const withoutExtension = (file: string) => file.replace(/\.[cm]?[jt]s$/, '');

/** The file's new text (pure: reads and writes nothing). */
export async function renamedSource(text: string, rename: Rename): Promise<string> {
  const { Node } = await loadTsMorph();
  const project = await scratchProject();
  const file = project.createSourceFile(`/${path.basename(rename.to)}`, text);
  const dir = path.dirname(rename.from);
  const oldTarget = withoutExtension(rename.oldTypesFile);
  for (const declaration of file.getImportDeclarations()) {
    const specifier = declaration.getModuleSpecifierValue();
    if (!specifier.startsWith('.') || withoutExtension(path.resolve(dir, specifier)) !== oldTarget) continue;
    if (rename.newTypesFile !== rename.oldTypesFile) {
      // The person's spelling of the path (extension or not) is kept; only the file's name changes.
      const oldBase = path.basename(oldTarget);
      const at = specifier.lastIndexOf(oldBase);
      declaration
        .getModuleSpecifier()
        .setLiteralValue(`${specifier.slice(0, at)}${path.basename(withoutExtension(rename.newTypesFile))}${specifier.slice(at + oldBase.length)}`);
    }
    for (const named of declaration.getNamedImports()) {
      const renamed = rename.types[named.getName()];
      if (!renamed) continue;
      // `OldHandler as Mine`: only the imported name changes. Otherwise every use of it in the file.
      const name = named.getNameNode();
      if (named.getAliasNode() || !Node.isIdentifier(name)) named.setName(renamed);
      else name.rename(renamed);
    }
  }
  const result = file.getFullText();
  project.removeSourceFile(file);
  return result;
}

/** Writes the renamed handler at its new path (failing if anything is there) and removes the old file. */
export async function renameHandler(rename: Rename): Promise<void> {
  const text = await renamedSource(readFileSync(rename.from, 'utf8'), rename);
  writeFileSync(rename.to, text, { flag: 'wx' });
  unlinkSync(rename.from);
}
