/**
 * Renders TypeScript source in memory from a few plain statement shapes (imports, constants, type
 * aliases, interfaces, or text). The layout follows ts-morph's printStructure, which it replaces:
 * loading ts-morph loads the TypeScript compiler, about a second of every generator run for the
 * four kinds of statement the emitters write. Indentation and line breaks inside a statement are
 * prettier's job (format.ts); the blank lines between statements are decided here.
 */
import type { Model } from '../load/model.ts';
import { tsBanner } from './output.ts';

export interface ImportStatement {
  kind: 'import';
  moduleSpecifier: string;
  isTypeOnly?: boolean;
  namedImports: (string | { name: string; alias: string })[];
}

export interface ConstStatement {
  kind: 'const';
  isExported?: boolean;
  docs?: string[];
  declarations: { name: string; type?: string; initializer: string }[];
}

export interface TypeAliasStatement {
  kind: 'type';
  isExported?: boolean;
  docs?: string[];
  name: string;
  type: string;
}

export interface InterfaceStatement {
  kind: 'interface';
  isExported?: boolean;
  docs?: string[];
  name: string;
  properties: { name: string; type: string }[];
}

/** A statement: one of the shapes, or source text written as it is. */
export type Statement = string | ImportStatement | ConstStatement | TypeAliasStatement | InterfaceStatement;

/** A documentation comment: `/** text *\/` on one line, or one ` * line` per line. */
function jsDoc(text: string): string {
  const lines = text.split(/\r?\n/);
  if (lines.length <= 1) return `/** ${text}${text.endsWith(' ') ? '' : ' '}*/`;
  return `/**\n${lines
    .slice(lines[0] === '' ? 1 : 0)
    .map((line) => ` *${line ? ` ${line}` : ''}\n`)
    .join('')} */`;
}

const docsOf = (docs: readonly string[] | undefined) => (docs ?? []).map((d) => `${jsDoc(d)}\n`).join('');
const exported = (s: { isExported?: boolean }) => (s.isExported ? 'export ' : '');

function print(statement: Statement): string {
  if (typeof statement === 'string') return statement;
  switch (statement.kind) {
    case 'import': {
      const names = statement.namedImports.map((n) => (typeof n === 'string' ? n : `${n.name} as ${n.alias}`));
      return `import${statement.isTypeOnly ? ' type' : ''} { ${names.join(', ')} } from '${statement.moduleSpecifier}';`;
    }
    case 'const': {
      const declarations = statement.declarations.map((d) => `${d.name}${d.type ? `: ${d.type}` : ''} = ${d.initializer}`);
      return `${docsOf(statement.docs)}${exported(statement)}const ${declarations.join(', ')};`;
    }
    case 'type':
      return `${docsOf(statement.docs)}${exported(statement)}type ${statement.name} = ${statement.type};`;
    case 'interface':
      return `${docsOf(statement.docs)}${exported(statement)}interface ${statement.name} {\n${statement.properties.map((p) => `  ${p.name}: ${p.type};\n`).join('')}}`;
  }
}

/** The text of a source file made of `statements`, with the generated-file banner. */
export function renderSource(statements: readonly Statement[], extraLeading = ''): string {
  let text = '';
  for (const statement of statements) {
    // As ts-morph lays statements out: a blank line after a closing brace and before an
    // interface, otherwise each statement on its own line.
    if (text) {
      const blank = /}\s*$/.test(text) || (typeof statement !== 'string' && statement.kind === 'interface');
      const wanted = blank ? '\n\n' : '\n';
      if (!text.endsWith(wanted)) text += text.endsWith('\n') ? wanted.slice(1) : wanted;
    }
    text += print(statement);
  }
  return `${tsBanner}${extraLeading}${text}${text.endsWith('\n') ? '' : '\n'}`;
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

/** The application's types the handler types name (its services, its principal's claims), by the file that exports them. */
export function appTypeImports(model: Model): { file: string; names: string[] }[] {
  const out: { file: string; names: string[] }[] = [];
  for (const named of [model.paths.services, model.paths.principal]) {
    if (!named) continue;
    const same = out.find((i) => i.file === named.file);
    if (same) same.names.push(named.type);
    else out.push({ file: named.file, names: [named.type] });
  }
  return out;
}
