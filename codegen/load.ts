/**
 * Stage 1 of the pipeline: read tools.yaml, validate it strictly (its own JSON Schema, then
 * references, templates and the tools' JSON Schemas) and build the plain model.
 * Every problem is collected and reported together, each with file, line and column.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { ErrorObject } from 'ajv/dist/2020.js';
import { LineCounter, parseDocument } from 'yaml';
import { frameworkErrors } from '../core/framework-errors.ts';
import { inlineRefs, refName, sharedRefs, type Defs } from './defs.ts';
import { hint } from './did-you-mean.ts';
import { loadPrompts, loadResources } from './features.ts';
import { byCodePoint, isObject, section, strings } from './raw-values.ts';
import { checkDefs, checkHeaders, compileSchema, compileShared, reportUnknownKeywords, unescapePointer } from './schema-checks.ts';
import { SchemaCompiler, toolSchemaId } from './schemas.ts';
import { EntryCache } from './entry-cache.ts';
import { parseInPiecesWithSpans } from './yaml-pieces.ts';
import { PieceLocator, wholeFileLocator, type LinePos } from './yaml-positions.ts';
import { ValidatorModules, type CompiledPart } from './validator-modules.ts';
import type { ErrorModel, LintOptions, Model, ParamType, ServerModel, ToolModel } from './model.ts';
import { projectFolders } from './project-paths.ts';
import { ToolsYamlError, type Problem } from './problems.ts';
import { validateToolsYamlFile } from './tools-yaml-validator.ts';
import type { JSONSchema } from './json-schema.ts';

type Path = (string | number)[];

interface RawFile {
  server: ServerModel;
  auth?: 'bearer' | 'none';
  codegen?: {
    generated?: string;
    handlers?: string;
    docs?: string;
    runtime?: string;
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
interface RawError {
  message: string;
  surface: ErrorModel['surface'];
  status?: number;
  code?: number;
  remedy?: string;
  params?: Record<string, ParamType>;
}
interface RawTool {
  title?: string;
  description: string;
  scopes: string[];
  annotations?: ToolModel['annotations'];
  task?: ToolModel['task'];
  client_capabilities?: ToolModel['clientCapabilities'];
  input: JSONSchema;
  output?: JSONSchema;
  errors?: string[];
  examples?: ToolModel['examples'];
}

const TEMPLATE_PARAM = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

/** Parameter names of a message template, in order of first appearance. */
export function templateParams(template: string): string[] {
  return [...new Set([...template.matchAll(TEMPLATE_PARAM)].map((m) => m[1]!))];
}

/** snake_case / kebab-case / dotted tool name to a PascalCase type name. */
export function pascalCase(name: string): string {
  return name
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('');
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

  const validateFile = validateToolsYamlFile;
  if (!validateFile(raw)) for (const e of validateFile.errors ?? []) reportSchemaError(e, atPath);

  // The reference checks run even when the shape checks failed, so that one run reports every
  // problem; they read the file defensively and skip what is not of the right shape.
  const data = sanitize(raw);
  const lintDescriptions = data.codegen?.lint?.descriptions !== false;
  const errors = buildErrors(data, atPath);
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
  const tools: ToolModel[] = [];
  const typeNames = new Map<string, string>();
  // Sorted, so that the compiled code (and its function numbering) does not depend on YAML order.
  for (const [name, tool] of Object.entries(data.tools).sort(([a], [b]) => byCodePoint(a, b))) {
    const base = ['tools', name];
    const typeName = pascalCase(name);
    const defClash = Object.keys(defs).find((d) => [`${typeName}Arguments`, `${typeName}Result`, `${typeName}Handler`, `${typeName}ErrorCode`].includes(d));
    if (defClash) atPath(base, `tool ${name} generates a type named ${defClash}, which is also the name of a $defs entry; rename one`, true);
    const clash = typeNames.get(typeName);
    if (clash) atPath(base, `tool ${name} and tool ${clash} would both generate types named ${typeName}; rename one`, true);
    typeNames.set(typeName, name);
    tool.scopes.forEach((scope, i) => {
      if (!scopeNames.has(scope))
        atPath([...base, 'scopes', i], `tool ${name} requires scope ${scope}, which is not declared under scopes${hint(scope, scopeNames)}`);
    });
    (tool.errors ?? []).forEach((code, i) => {
      const declared = errorByCode.get(code);
      if (!declared) atPath([...base, 'errors', i], `tool ${name} raises error ${code}, which is not declared under errors${hint(code, errorByCode.keys())}`);
      else if (declared.surface !== 'tool')
        atPath([...base, 'errors', i], `tool ${name} lists error ${code}, but its surface is ${declared.surface}; a tool can raise only surface: tool errors`);
    });
    const inputSchema = inlineRefs(tool.input, defs);
    const outputSchema = tool.output && inlineRefs(tool.output, defs);
    for (const [kind, wire] of [
      ['input', inputSchema],
      ['output', outputSchema],
    ] as const)
      // A schema that is still a $ref here points nowhere: that problem is reported where the $ref is.
      if (wire && wire.type !== 'object' && wire.$ref === undefined)
        atPath([...base, kind], `the ${kind} schema of tool ${name} must describe an object: \`type: object\`, or a $ref to a $defs entry that is one`);
    warnUndescribed(tool.input, [...base, 'input'], defs, warnAt);
    if (tool.output) warnUndescribed(tool.output, [...base, 'output'], defs, warnAt);
    if (defsUsable) checkHeaders(name, tool, base, defs, atPath, warnAt);
    // A cached tool compiled without a problem from the same schemas and examples: its checks are done.
    const cached = validators.cached(`tools:${name}`);
    replay(cached);
    // Keyword typos are found even when references are broken; a schema with one is not compiled.
    const compile = (schema: JSONSchema, kind: 'input' | 'output') =>
      !cached && schemas && reportUnknownKeywords(schemas, schema, [...base, kind], atPath) && defsCompiled
        ? compileSchema(schemas, schema, sharedRefs(schema), toolSchemaId(name, kind), [...base, kind], atPath, warnCompiled)
        : undefined;
    const input = compile(tool.input, 'input');
    const output = tool.output ? compile(tool.output, 'output') : undefined;
    (tool.examples ?? []).forEach((ex, i) => {
      if (input && !input(ex.arguments))
        atPath([...base, 'examples', i, 'arguments'], `example arguments do not match the input schema: ${schemas!.ajv.errorsText(input.errors)}`);
      if (output && ex.result !== undefined && !output(ex.result))
        atPath([...base, 'examples', i, 'result'], `example result does not match the output schema: ${schemas!.ajv.errorsText(output.errors)}`);
      if (ex.error !== undefined && !(tool.errors ?? []).includes(ex.error))
        atPath([...base, 'examples', i, 'error'], `example error ${ex.error} is not among the tool's errors`);
      const declared = ex.error === undefined ? undefined : errorByCode.get(ex.error);
      if (ex.error_params !== undefined && !declared) atPath([...base, 'examples', i, 'error_params'], 'error_params needs an error');
      if (ex.error_params !== undefined && declared) {
        const missing = declared.params.map((p) => p.name).filter((n) => !(n in ex.error_params!));
        const unknown = Object.keys(ex.error_params).filter((n) => !declared.params.some((p) => p.name === n));
        if (missing.length || unknown.length)
          atPath(
            [...base, 'examples', i, 'error_params'],
            `error_params must give exactly the parameters of ${ex.error}'s message (${declared.params.map((p) => p.name).join(', ') || 'none'})` +
              (missing.length ? `; missing: ${missing.join(', ')}` : '') +
              (unknown.length ? `; unknown: ${unknown.join(', ')}` : ''),
          );
      }
      if (ex.result === undefined && ex.error === undefined)
        warnAt(
          [...base, 'examples', i],
          `example${ex.title ? ` "${ex.title}"` : ''} of tool ${name} has no result (or error); give one, so the docs show a whole exchange`,
        );
    });
    tools.push({
      name,
      typeName,
      ...(tool.title !== undefined && { title: tool.title }),
      description: tool.description,
      scopes: [...tool.scopes],
      ...(tool.annotations && { annotations: tool.annotations }),
      ...(tool.task !== undefined && { task: tool.task }),
      ...(tool.client_capabilities?.length && { clientCapabilities: [...tool.client_capabilities].sort() }),
      input: tool.input,
      inputSchema,
      ...(tool.output && { output: tool.output, outputSchema: outputSchema! }),
      errors: [...(tool.errors ?? [])].sort(),
      examples: tool.examples ?? [],
    });
  }
  const taken = new Map<string, string>(Object.keys(defs).map((d) => [d, `$defs ${d}`]));
  for (const t of tools) for (const suffix of ['Arguments', 'Result', 'Handler', 'ErrorCode']) taken.set(`${t.typeName}${suffix}`, `tool ${t.name}`);
  const featureScope = { scopeNames, errorByCode, typeNames: taken, pascalCase, atPath };
  const top = isObject(raw) ? raw : {};
  const resources = loadResources(top.resources, featureScope);
  const prompts = loadPrompts(top.prompts, featureScope);
  if (problems.length) throw new ToolsYamlError(display, problems, parsed.text);
  parsed.savePositions?.();

  const dir = path.dirname(path.resolve(file));
  const cg = data.codegen ?? {};
  return {
    paths: {
      source: path.resolve(file),
      ...projectFolders(file, cg),
      ...(cg.docs && { docs: path.resolve(dir, cg.docs) }),
      contract: path.resolve(dir, cg.contract ?? `${path.basename(file).replace(/\.ya?ml$/, '')}.contract.json`),
      runtimeImport: cg.runtime ?? '../runtime',
      ...(cg.services && { services: { file: path.resolve(dir, cg.services.import), type: cg.services.type } }),
      ...(cg.principal && { principal: { file: path.resolve(dir, cg.principal.import), type: cg.principal.type } }),
    },
    lint: { descriptions: cg.lint?.descriptions ?? true, portability: cg.lint?.portability ?? true, allow: cg.lint?.allow ?? [] },
    server: data.server,
    auth: data.auth ?? 'bearer',
    scopes: Object.entries(data.scopes)
      .map(([name, s]) => ({ name, description: s.description, default: s.default ?? false }))
      .sort((a, b) => byCodePoint(a.name, b.name)),
    errors: errors.sort((a, b) => byCodePoint(a.code, b.code)),
    defs: Object.keys(defs)
      .sort(byCodePoint)
      .map((name) => ({ name, schema: defs[name]! })),
    tools: tools.sort((a, b) => byCodePoint(a.name, b.name)),
    resources,
    prompts,
    validators,
    warnings: lintDescriptions ? warnings.sort((a, b) => a.line - b.line || a.col - b.col) : [],
  };
}

function buildErrors(data: RawFile, atPath: (p: Path, m: string, key?: boolean) => void): ErrorModel[] {
  const declared = data.errors ?? {};
  const merged: Record<string, RawError & { framework: boolean }> = {};
  for (const [code, e] of Object.entries(frameworkErrors)) merged[code] = { ...e, framework: true };
  for (const [code, e] of Object.entries(declared)) {
    const base = merged[code];
    if (base && base.surface !== e.surface)
      atPath(['errors', code, 'surface'], `error ${code} is raised by the runtime with surface ${base.surface}; it cannot be redeclared as ${e.surface}`);
    // What clients see besides the text is the runtime's: a restatement may change the message and
    // the remedy, not the HTTP status or the JSON-RPC code.
    if (base)
      for (const [key, shown] of [
        ['status', 'HTTP status'],
        ['code', 'JSON-RPC code'],
      ] as const)
        if (key in e && e[key] !== base[key])
          atPath(
            ['errors', code, key],
            `error ${code} is raised by the runtime with ${base[key] === undefined ? `no ${shown}` : `${shown} ${base[key]}`}; a restatement may change its message and remedy, not its ${shown} (${e[key]})`,
          );
    merged[code] = { ...base, ...e, framework: Boolean(base) };
  }
  const out: ErrorModel[] = [];
  for (const [code, e] of Object.entries(merged)) {
    const names = templateParams(e.message);
    const declaredParams = e.params ?? {};
    if (code in declared) {
      for (const p of Object.keys(declaredParams))
        if (!names.includes(p)) atPath(['errors', code, 'params', p], `error ${code} declares parameter ${p}, but its message never uses {{${p}}}`, true);
      if ((e.surface === 'auth' || e.surface === 'http') && e.status === undefined)
        atPath(['errors', code], `error ${code} has surface ${e.surface} and needs an HTTP status`, true);
    }
    out.push({
      code,
      message: e.message,
      surface: e.surface,
      ...(e.status !== undefined && { status: e.status }),
      ...(e.code !== undefined && { rpcCode: e.code }),
      ...(e.remedy !== undefined && { remedy: e.remedy }),
      params: names.map((name) => ({ name, type: declaredParams[name] ?? 'string' })),
      framework: e.framework,
    });
  }
  return out;
}

/** Warns about each property, at any depth, that has no description (nor a referenced definition with one). */
function warnUndescribed(schema: JSONSchema, where: Path, defs: Defs, warnAt: (p: Path, m: string) => void): void {
  const described = (s: unknown): boolean => {
    if (typeof s !== 'object' || s === null) return true;
    const o = s as Record<string, unknown>;
    if (typeof o.description === 'string' && o.description.trim()) return true;
    const target = refName(o.$ref);
    return target !== undefined && target in defs && described(defs[target]);
  };
  // `declared`: the fields of the object around a composition branch, whose schemas the branch
  // only refines (`oneOf: [{ properties: { kind: { const: a } } }]`); their description is there.
  const walk = (node: unknown, at: Path, declared: ReadonlySet<string> = new Set()) => {
    if (typeof node !== 'object' || node === null || Array.isArray(node)) return;
    const o = node as Record<string, unknown>;
    const own = typeof o.properties === 'object' && o.properties !== null ? Object.keys(o.properties) : [];
    if (own.length)
      for (const [prop, sub] of Object.entries(o.properties as object)) {
        if (!declared.has(prop) && !described(sub))
          warnAt([...at, 'properties', prop], `${prop} has no description; add one, so that the docs and the model can tell what it is`);
        walk(sub, [...at, 'properties', prop]);
      }
    for (const key of ['items', 'additionalProperties'] as const) walk(o[key], [...at, key]);
    const around = new Set([...declared, ...own]);
    for (const key of ['anyOf', 'oneOf', 'allOf'] as const)
      if (Array.isArray(o[key])) (o[key] as unknown[]).forEach((sub, i) => walk(sub, [...at, key, i], around));
    for (const key of ['if', 'then', 'else', 'not'] as const) walk(o[key], [...at, key], around);
    if (typeof o.dependentSchemas === 'object' && o.dependentSchemas !== null)
      for (const [name, sub] of Object.entries(o.dependentSchemas)) walk(sub, [...at, 'dependentSchemas', name], around);
  };
  walk(schema, where);
}

/** The key text at a source offset (for duplicate-key messages). */
function keyAt(text: string, offset: number): string {
  const m = /^["']?([^"':\n]+)/.exec(text.slice(offset));
  return m ? m[1]!.trim() : '';
}

/** The parts of a parsed file that have the right shape, for the reference checks. */
function sanitize(raw: unknown): RawFile {
  const file = isObject(raw) ? raw : {};
  const tools: Record<string, RawTool> = {};
  for (const [name, t] of section(file.tools)) {
    tools[name] = {
      ...(t as unknown as RawTool),
      description: typeof t.description === 'string' ? t.description : '',
      scopes: strings(t.scopes),
      errors: strings(t.errors),
      input: isObject(t.input) ? t.input : { type: 'object' },
      ...(isObject(t.output) ? { output: t.output } : { output: undefined }),
      examples: (Array.isArray(t.examples) ? t.examples : [])
        .filter(isObject)
        .map((e) => ({ ...e, arguments: isObject(e.arguments) ? e.arguments : {} })) as ToolModel['examples'],
    };
    if (!tools[name]!.output) delete tools[name]!.output;
  }
  const errors: Record<string, RawError> = {};
  for (const [code, e] of section(file.errors)) if (typeof e.message === 'string' && typeof e.surface === 'string') errors[code] = e as unknown as RawError;
  return {
    server: (isObject(file.server) ? file.server : { name: '', version: '' }) as unknown as RawFile['server'],
    ...(file.auth === 'none' || file.auth === 'bearer' ? { auth: file.auth } : {}),
    ...(isObject(file.codegen) ? { codegen: file.codegen as RawFile['codegen'] } : {}),
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
