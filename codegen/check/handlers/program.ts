/**
 * The handlers' program, compiled with TypeScript's incremental builder: what the check process
 * (child.ts) runs. Only the files in scope (handlers and generated files) are checked and reported;
 * what they import is parsed and bound for their types but not itself checked (`npm run typecheck`
 * does the whole repository).
 *
 * Two caches make it fast. Across processes, a .tsbuildinfo keeps each file's hash and its
 * diagnostics, so `npm run gen` and `npm start` re-check only the files a change affects (the
 * parsing of ~650 files, most of them packages' declarations, remains: about a second). Within a
 * process (`npm run dev`, the resident checker of `npm run gen`), the previous builder program and
 * every parsed file are kept: a project file is parsed again only when its text changed, and
 * packages are never read again.
 */
import { renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import type TS from 'typescript';
import { stampOf, sameStamp, type FileStamp } from './stamp.ts';

type Typescript = typeof TS;

/** One error in a file in scope, as TypeScript prints it. */
export interface Problem {
  /** Relative to the project root, with forward slashes. */
  file: string;
  line: number;
  column: number;
  code: number;
  /** TypeScript's own formatting: `file:line:col - error TSnnnn: message`, the line and a squiggle. */
  text: string;
}

export interface ProgramCheck {
  problems: Problem[];
  /** How many files were reported on (handlers and generated files). */
  files: number;
  /** The program's sources outside node_modules, as they were read (for the pass record). */
  inputs: Record<string, FileStamp>;
}

const inPackage = (file: string) => file.includes('/node_modules/');

export interface HandlerProgram {
  /** Parses and binds the program of these files, without checking: a warm-up while the generator runs. */
  update(roots: string[]): void;
  /** Updates the program to these roots and returns the errors in its files that `reported` accepts. */
  check(roots: string[], reported: (file: string) => boolean, color: boolean): ProgramCheck;
}

/** A program over the project's tsconfig.json (its compiler options; the files are the roots given). */
export function createHandlerProgram(ts: Typescript, root: string, buildInfoFile: string): HandlerProgram {
  const configFile = ts.findConfigFile(root, (f) => ts.sys.fileExists(f), 'tsconfig.json');
  if (!configFile) throw new Error(`no tsconfig.json in ${root} or above it`);
  const parsed = ts.getParsedCommandLineOfConfigFile(
    configFile,
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      },
    },
  );
  const options: TS.CompilerOptions = { ...parsed?.options, noEmit: true, incremental: true, tsBuildInfoFile: buildInfoFile };

  const host = ts.createIncrementalCompilerHost(options);
  // As tsc does: JSDoc in .ts files carries no types, and skipping it saves a fifth of the parsing.
  host.jsDocParsingMode = ts.JSDocParsingMode.ParseForTypeErrors;
  // Parsed files, kept while their stamp holds: the next program reuses them (and TypeScript then
  // reuses its whole structure when no import changed).
  const parsedFiles = new Map<string, { stamp: FileStamp | undefined; file: TS.SourceFile | undefined }>();
  const read = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, languageVersion, onError, fresh) => {
    const stamp = inPackage(fileName) ? undefined : stampOf(fileName);
    const known = parsedFiles.get(fileName);
    // A project file is kept only while its text is the same (not merely its size and mtime: the
    // resident checker lives for minutes, and two saves can share both); packages are never re-read.
    if (known && !fresh && (inPackage(fileName) || (sameStamp(known.stamp, stamp) && known.file?.text === host.readFile(fileName)))) return known.file;
    const file = read(fileName, languageVersion, onError, fresh);
    parsedFiles.set(fileName, { stamp, file });
    return file;
  };
  host.writeFile = (file, text) => {
    // Beside and renamed: a gen and a dev checking at once never leave half a .tsbuildinfo.
    writeFileSync(`${file}.${process.pid}`, text);
    renameSync(`${file}.${process.pid}`, file);
  };

  let builder: TS.SemanticDiagnosticsBuilderProgram | undefined;
  const update = (roots: string[]) => {
    builder = ts.createSemanticDiagnosticsBuilderProgram(roots, options, host, builder ?? ts.readBuilderProgram(options, host));
    return builder;
  };
  const formatHost: TS.FormatDiagnosticsHost = { getCanonicalFileName: (f) => f, getCurrentDirectory: () => root, getNewLine: () => '\n' };
  const relative = (file: string) => path.relative(root, file).split(path.sep).join('/');

  return {
    update,
    check(roots, reported, color) {
      const program = update(roots);
      const inScope = new Set(program.getSourceFiles().flatMap((sf) => (!inPackage(sf.fileName) && reported(path.resolve(sf.fileName)) ? [sf.fileName] : [])));
      // Walks the files the changes affect, checking those in scope; the others are only marked
      // done, so the .tsbuildinfo knows nothing is pending.
      let affected;
      do affected = program.getSemanticDiagnosticsOfNextAffectedFile(undefined, (sf) => !inScope.has(sf.fileName));
      while (affected);
      const diagnostics: TS.Diagnostic[] = [];
      for (const file of inScope) {
        const sf = program.getSourceFile(file);
        // Cached for files no change affected (errors included, from the .tsbuildinfo or this process).
        if (sf) diagnostics.push(...program.getSyntacticDiagnostics(sf), ...program.getSemanticDiagnostics(sf));
      }
      // noEmit: this writes the .tsbuildinfo only.
      program.emit();
      const problems = diagnostics
        .filter((d) => d.category === ts.DiagnosticCategory.Error && d.file)
        .map((d) => {
          const { line, character } = d.file!.getLineAndCharacterOfPosition(d.start ?? 0);
          const text = ts.formatDiagnosticsWithColorAndContext([d], formatHost);
          return { file: relative(d.file!.fileName), line: line + 1, column: character + 1, code: d.code, text: color ? text : stripVTControlCharacters(text) };
        });
      const inputs: Record<string, FileStamp> = {};
      for (const sf of program.getSourceFiles()) {
        const stamp = parsedFiles.get(sf.fileName)?.stamp;
        if (!inPackage(sf.fileName) && stamp) inputs[sf.fileName] = stamp;
      }
      inputs[configFile] = stampOf(configFile) ?? [-1, -1];
      return { problems, files: inScope.size, inputs };
    },
  };
}
