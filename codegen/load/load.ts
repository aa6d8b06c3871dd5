/**
 * Stage 1 of the pipeline: read tools.yaml, validate it strictly (its own JSON Schema, then
 * references, templates and the tools' JSON Schemas) and build the plain model.
 * Every problem is collected and reported together, each with file, line and column.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { ErrorObject } from 'ajv/dist/2020.js';
import { LineCounter, parseDocument } from 'yaml';
import type { Defs } from './defs.ts';
import { hint } from './did-you-mean.ts';
import { loadPrompts, loadResources } from './resources-prompts.ts';
import { linkTools, loadApps } from './apps-load.ts';
import { byCodePoint, section, strings } from './raw-values.ts';
import { checkDefs, compileShared, unescapePointer } from './schema-checks.ts';
import { SchemaCompiler } from './schemas.ts';
import { EntryCache } from '../cache/entry-cache.ts';
import { parseInPiecesWithSpans } from './yaml-pieces.ts';
import { PieceLocator, wholeFileLocator, type LinePos } from './yaml-positions.ts';
import { ValidatorModules, type CompiledPart } from './validator-modules.ts';
import type { LintOptions, Model, ServerModel, ToolModel } from './model.ts';
import { projectFolders } from './project-paths.ts';
import { ToolsYamlError, type Problem } from './problems.ts';
import { validateToolsYamlFile } from './tools-yaml-validator.ts';
import { buildErrors, type RawError } from './errors-load.ts';
import { authSchemaErrors, isAuthSchemaError, loadAuth } from './auth-load.ts';
import { loadTools, pascalCase, type RawTool } from './tools-load.ts';
import { warnUndescribed } from './undescribed.ts';
import { ToolParts } from '../cache/tool-parts.ts';
import type { JSONSchema } from './json-schema.ts';
import { isPlainObject } from '../../core/plain-object.ts';
import { FRAMEWORK_IMPORTS } from '../../core/framework-package.ts';

type Path = (string | number)[];

interface RawFile {
  server: ServerModel;
  codegen?: {
    generated?: string;
    handlers?: string;
    docs?: string;
    contract?: string;
    services?: { import: string; type: string };
    principal?: { import: string; type: string };
    lint?: Partial<LintOptions>;
  };
  scopes: Record<string, { description: string; default?: boolean }>;
  $defs: Record<string, JSONSchema>;
  errors?: Record<string, RawError>;
  tools: Record<string, RawTool>;
}
/** How a load may reuse the work of earlier runs. */
export interface LoadOptions {
  /** Keep each tool's compiled validators between runs (entry-cache.ts): what `npm run gen` and `npm run dev` do. */
  cache?: boolean;
}

/** Loads and validates a tools.yaml file; throws ToolsYamlError listing every problem. */
export function loadToolsYaml(file: string, options: LoadOptions = {}): Model {
  return validateToolsYaml(parseToolsYamlFile(file, options), options);
}

export function parseToolsYaml(text: string, file: string, options: LoadOptions = {}): Model {
  return validateToolsYaml(parseToolsYamlText(text, file), options);
}

/** A tools.yaml parsed (YAML only), for validateToolsYaml; problems found so far are kept. */
export interface ParsedToolsYaml {
  file: string;
  display: string;
  text: string;
  raw: unknown;
  problems: Problem[];
  /** Line and column of the node at a path (its key when `key`), for problems and warnings. */
  position(p: Path, key: boolean): LinePos;
  /** Keeps what locating cost for the next run (positions located piece by piece). */
  savePositions?(): void;
}

export function parseToolsYamlFile(file: string, options: LoadOptions = {}): ParsedToolsYaml {
  return parseToolsYamlText(readFileSync(file, 'utf8'), file, options);
}

/**
 * Stage 1a: YAML syntax, with the `yaml` parser (YAML 1.2), which keeps the position of every node
 * for the problems found later. Throws when the file does not parse, since it has no structure to check.
 */
export function parseToolsYamlText(text: string, file: string, options: LoadOptions = {}): ParsedToolsYaml {
  const display = path.relative(process.cwd(), file) || file;
  if (options.cache) {
    // Piece by piece, each piece's parse cached (yaml-pieces.ts); the whole file is parsed only to locate a problem.
    const pieces = new EntryCache<unknown>('yaml', file);
    const parsed = parseInPiecesWithSpans(text, pieces);
    if (parsed) {
      pieces.save();
      // Located piece by piece too, each piece's offsets cached (yaml-positions.ts).
      const locator = new PieceLocator(text, parsed.spans, file);
      return { file, display, text, raw: parsed.values, problems: [], position: (p, key) => locator.position(p, key), savePositions: () => locator.save() };
    }
  }
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, uniqueKeys: true, prettyErrors: false });
  const problems: Problem[] = doc.errors.map((err) => {
    const pos = lineCounter.linePos(err.pos[0]);
    const message = err.code === 'DUPLICATE_KEY' ? `duplicate key ${keyAt(text, err.pos[0])}: each name may be declared once` : err.message.split('\n')[0]!;
    return { line: pos.line, col: pos.col, message };
  });
  if (doc.errors.some((e) => e.code !== 'DUPLICATE_KEY')) throw new ToolsYamlError(display, problems, text);
  return { file, display, text, raw: doc.toJS() as unknown, problems, position: wholeFileLocator(text, { doc, lineCounter }) };
}

/** Stage 1b: the file's own schema, references, templates, the tools' schemas and examples -> the model. */
export function validateToolsYaml(parsed: ParsedToolsYaml, options: LoadOptions = {}): Model {
  const { file, display, raw } = parsed;
  const problems = [...parsed.problems];
  const warnings: Problem[] = [];
  const position = (p: Path, key: boolean) => parsed.position(p, key);
  const atPath = (p: Path, message: string, key = false) => problems.push({ ...position(p, key), message });
  const warnAt = (p: Path, message: string) => warnings.push({ ...position(p, true), message });

  const top = isPlainObject(raw) ? raw : {};
  const validateFile = validateToolsYamlFile;
  if (!validateFile(raw)) {
    const found = validateFile.errors ?? [];
    for (const e of found.filter((e) => !isAuthSchemaError(e))) reportSchemaError(e, atPath);
    for (const e of authSchemaErrors(found, top.auth)) reportSchemaError(e, atPath);
  }
  const auth = loadAuth(top.auth, atPath);

  // The reference checks run even when the shape checks failed, so that one run reports every
  // problem; they read the file defensively and skip what is not of the right shape.
  const data = sanitize(raw);
  const lintDescriptions = data.codegen?.lint?.descriptions !== false;
  const errors = buildErrors(data.errors ?? {}, atPath);
  const errorByCode = new Map(errors.map((e) => [e.code, e]));
  const scopeNames = new Set(Object.keys(data.scopes));
  const defs: Defs = data.$defs;

  const validators = new ValidatorModules(options.cache ? new EntryCache<CompiledPart>('validators', file) : undefined);
  for (const [name, def] of Object.entries(defs)) validators.addDef(name, def, defs);
  for (const [name, tool] of Object.entries(data.tools)) validators.addTool(name, pascalCase(name), tool, defs);
  // Every module cached: nothing to compile, and no compiler to make. Otherwise the shapes are
  // compiled (the tools' schemas call them) and so is every tool that is not cached.
  const schemas = validators.allCached() ? undefined : new SchemaCompiler();
  validators.schemas = schemas;
  /** Warnings of a compilation: reported, and kept with the part's module for the runs that find it cached. */
  const warnCompiled = (p: Path, message: string) => {
    validators.noteWarning(p, message);
    warnAt(p, message);
  };
  const replay = (cached: CompiledPart | undefined) => cached?.warnings.forEach((w) => warnAt(w.path, w.message));
  const defsUsable = checkDefs(schemas, defs, data.tools, atPath);
  // The tools' schemas call the shapes' validators: they compile only when every shape did.
  const defsCompiled = defsUsable && (schemas ? compileShared(schemas, defs, atPath, warnCompiled) : true);
  if (!schemas) for (const name of Object.keys(defs)) replay(validators.cached(`$defs:${name}`));
  for (const [name, def] of Object.entries(defs)) warnUndescribed(def, ['$defs', name], defs, warnAt);
  const tools = loadTools(data.tools, { defs, errorByCode, scopeNames, validators, schemas, defsUsable, defsCompiled, atPath, warnAt, warnCompiled, replay });
  const taken = new Map<string, string>(Object.keys(defs).map((d) => [d, `$defs ${d}`]));
  for (const t of tools) for (const suffix of ['Arguments', 'Result', 'Handler', 'ErrorCode']) taken.set(`${t.typeName}${suffix}`, `tool ${t.name}`);
  const featureScope = { scopeNames, errorByCode, typeNames: taken, pascalCase, atPath };
  const resources = loadResources(top.resources, featureScope);
  const prompts = loadPrompts(top.prompts, featureScope);
  const apps = loadApps(top.ui, { file: path.resolve(file), resources, pascalCase, atPath });
  linkTools(tools, data.tools, apps, atPath, warnAt);
  if (problems.length) throw new ToolsYamlError(display, problems, parsed.text);
  parsed.savePositions?.();

  const dir = path.dirname(path.resolve(file));
  const cg = data.codegen ?? {};
  const sortedErrors = errors.sort((a, b) => byCodePoint(a.code, b.code));
  const sortedDefs = Object.keys(defs)
    .sort(byCodePoint)
    .map((name) => ({ name, schema: defs[name]! }));
  return {
    paths: {
      source: path.resolve(file),
      ...projectFolders(file, cg),
      ...(cg.docs && { docs: path.resolve(dir, cg.docs) }),
      contract: path.resolve(dir, cg.contract ?? `${path.basename(file).replace(/\.ya?ml$/, '')}.contract.json`),
      runtimeImport: FRAMEWORK_IMPORTS.runtime,
      clientImport: FRAMEWORK_IMPORTS.client,
      ...(cg.services && { services: { file: path.resolve(dir, cg.services.import), type: cg.services.type } }),
      ...(cg.principal && { principal: { file: path.resolve(dir, cg.principal.import), type: cg.principal.type } }),
    },
    lint: { descriptions: cg.lint?.descriptions ?? true, portability: cg.lint?.portability ?? true, allow: cg.lint?.allow ?? [] },
    server: data.server,
    auth,
    scopes: Object.entries(data.scopes)
      .map(([name, s]) => ({ name, description: s.description, default: s.default ?? false }))
      .sort((a, b) => byCodePoint(a.name, b.name)),
    errors: sortedErrors,
    defs: sortedDefs,
    tools: tools.sort((a, b) => byCodePoint(a.name, b.name)),
    resources,
    prompts,
    apps,
    validators,
    parts: new ToolParts(options.cache ? file : undefined, { defs: sortedDefs, errors: sortedErrors }),
    warnings: lintDescriptions ? warnings.sort((a, b) => a.line - b.line || a.col - b.col) : [],
  };
}

/** The key text at a source offset (for duplicate-key messages). */
function keyAt(text: string, offset: number): string {
  const m = /^["']?([^"':\n]+)/.exec(text.slice(offset));
  return m ? m[1]!.trim() : '';
}

/** The parts of a parsed file that have the right shape, for the reference checks. */
function sanitize(raw: unknown): RawFile {
  const file = isPlainObject(raw) ? raw : {};
  const tools: Record<string, RawTool> = {};
  for (const [name, t] of section(file.tools)) {
    tools[name] = {
      ...(t as unknown as RawTool),
      description: typeof t.description === 'string' ? t.description : '',
      scopes: strings(t.scopes),
      errors: strings(t.errors),
      input: isPlainObject(t.input) ? t.input : { type: 'object' },
      ...(isPlainObject(t.output) ? { output: t.output } : { output: undefined }),
      examples: (Array.isArray(t.examples) ? t.examples : [])
        .filter(isPlainObject)
        .map((e) => ({ ...e, arguments: isPlainObject(e.arguments) ? e.arguments : {} })) as ToolModel['examples'],
    };
    if (!tools[name]!.output) delete tools[name]!.output;
  }
  const errors: Record<string, RawError> = {};
  for (const [code, e] of section(file.errors)) if (typeof e.message === 'string' && typeof e.surface === 'string') errors[code] = e as unknown as RawError;
  return {
    server: (isPlainObject(file.server) ? file.server : { name: '', version: '' }) as unknown as RawFile['server'],
    ...(isPlainObject(file.codegen) ? { codegen: file.codegen as RawFile['codegen'] } : {}),
    scopes: Object.fromEntries(section(file.scopes)) as RawFile['scopes'],
    $defs: Object.fromEntries(section(file.$defs)) as RawFile['$defs'],
    errors,
    tools,
  };
}

function reportSchemaError(e: ErrorObject, atPath: (p: Path, m: string, key?: boolean) => void) {
  const p: Path = e.instancePath.split('/').slice(1).map(unescapePointer);
  const where = p.length ? p.join('.') : 'the file';
  switch (e.keyword) {
    case 'additionalProperties': {
      const known = Object.keys((e.parentSchema as { properties?: object } | undefined)?.properties ?? {});
      const key = e.params.additionalProperty as string;
      return atPath([...p, key], `unknown key ${key} in ${where}${hint(key, known)}`, true);
    }
    case 'required':
      return atPath(p, `${where} is missing the required key ${e.params.missingProperty}`, true);
    case 'propertyNames':
      return atPath([...p, e.params.propertyName as string], `invalid name ${e.params.propertyName} in ${where}`, true);
    case 'pattern':
      if (e.propertyName === undefined && p.length) return atPath(p, `${where} ${e.message}`, true);
      return atPath(p, `${where} ${e.message}`);
    case 'enum':
      return atPath(p, `${where} must be one of ${(e.params.allowedValues as unknown[]).join(', ')}`);
    default:
      return atPath(p, `${where} ${e.message}`);
  }
}
