/** Renders TypeScript source with ts-morph, in memory; one project is reused for every file. */
import { IndentationText, NewLineKind, Project, QuoteKind, type SourceFileStructure, StructureKind } from 'ts-morph';
import { reindent } from './indent.ts';
import { tsBanner } from './output.ts';

let project: Project | undefined;

function getProject(): Project {
  project ??= new Project({
    useInMemoryFileSystem: true,
    manipulationSettings: {
      indentationText: IndentationText.TwoSpaces,
      newLineKind: NewLineKind.LineFeed,
      quoteKind: QuoteKind.Single,
      useTrailingCommas: true,
    },
  });
  return project;
}

let counter = 0;

/** The text of a source file built from a ts-morph structure, with the generated-file banner. */
export function renderSource(statements: SourceFileStructure['statements'], extraLeading = ''): string {
  const file = getProject().createSourceFile(`/render-${counter++}.ts`, { kind: StructureKind.SourceFile, statements }, { overwrite: true });
  const text = file.getFullText();
  file.forget();
  // One indentation style throughout, including the JSON literals and json-schema-to-typescript's output.
  return tsBanner + extraLeading + reindent(text.replace(/\r\n/g, '\n'));
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
