/** Renders TypeScript source with ts-morph, in memory; one project is reused for every file. */
import { printStructure, type SourceFileStructure, StructureKind } from 'ts-morph';
import { tsBanner } from './output.ts';

/**
 * The text of a source file built from a ts-morph structure, with the generated-file banner.
 * printStructure writes the structure without parsing a source file, which keeps a 200-tool
 * generation fast.
 */
export function renderSource(statements: SourceFileStructure['statements'], extraLeading = ''): string {
  const text = printStructure(
    { kind: StructureKind.SourceFile, statements },
    { indentNumberOfSpaces: 2, newLine: '\n', useSingleQuote: true, insertSpaceAfterOpeningAndBeforeClosingNonemptyBraces: true },
  );
  // Indentation and line breaks are prettier's job (format.ts), as for the rest of the code base.
  return tsBanner + extraLeading + text;
}

/** A JSON value as a TypeScript literal (deterministic: keys keep their declared order). */
export function literal(value: unknown): string {
  return JSON.stringify(value, null, 2);
}

/** Relative ESM import specifier from one folder to a file. */
export function importPath(fromDir: string, toFile: string, relative: (a: string, b: string) => string): string {
  const rel = relative(fromDir, toFile).split('\\').join('/');
  return rel.startsWith('.') ? rel : `./${rel}`;
}
