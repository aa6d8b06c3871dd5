/**
 * Stage 1 for the tools of tools.yaml: each tool's references (scopes, errors, type names), its
 * schemas compiled (or found cached) and its examples checked against them, and its model.
 */
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { inlineRefs, sharedRefs, type Defs } from './defs.ts';
import { hint } from './did-you-mean.ts';
import { byCodePoint } from './raw-values.ts';
import { checkHeaders, compileSchema, reportUnknownKeywords } from './schema-checks.ts';
import { toolSchemaId, type SchemaCompiler } from './schemas.ts';
import type { CompiledPart, ValidatorModules } from './validator-modules.ts';
import type { ErrorModel, ToolModel } from './model.ts';
import type { JSONSchema } from './json-schema.ts';
import { warnUndescribed } from './undescribed.ts';
import type { RawToolUi } from './apps-load.ts';

type Path = (string | number)[];
type Report = (p: Path, message: string, key?: boolean) => void;

export interface RawTool {
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
  /** MCP Apps: resolved against the file's apps by apps-load.ts. */
  ui?: RawToolUi;
}

/** snake_case / kebab-case / dotted tool name to a PascalCase type name. */
export function pascalCase(name: string): string {
  return name
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('');
}

/** What the tools' checks need from the rest of the file. */
export interface ToolScope {
  defs: Defs;
  errorByCode: ReadonlyMap<string, ErrorModel>;
  scopeNames: ReadonlySet<string>;
  validators: ValidatorModules;
  /** Absent when every validator module is cached: nothing is compiled. */
  schemas: SchemaCompiler | undefined;
  /** The shared definitions' references resolve (the header checks need them). */
  defsUsable: boolean;
  /** The shared definitions compiled: the tools' schemas call them. */
  defsCompiled: boolean;
  atPath: Report;
  warnAt: (p: Path, message: string) => void;
  /** A compilation's warning: reported, and kept with the tool's cached module. */
  warnCompiled: (p: Path, message: string) => void;
  /** Reports again the warnings kept with a cached module. */
  replay: (cached: CompiledPart | undefined) => void;
}

/** The tools' models, sorted by name; their problems are reported through the scope. */
export function loadTools(raw: Record<string, RawTool>, scope: ToolScope): ToolModel[] {
  const { defs, errorByCode, scopeNames, validators, schemas, defsUsable, defsCompiled, atPath, warnAt, warnCompiled, replay } = scope;
  const tools: ToolModel[] = [];
  const typeNames = new Map<string, string>();
  // Sorted, so that the compiled code (and its function numbering) does not depend on YAML order.
  for (const [name, tool] of Object.entries(raw).sort(([a], [b]) => byCodePoint(a, b))) {
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
    checkExamples(name, tool, input, output, scope);
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
  return tools;
}

/** Each example's arguments and result against the compiled schemas, and its error against the tool's list. */
function checkExamples(name: string, tool: RawTool, input: ValidateFunction | undefined, output: ValidateFunction | undefined, scope: ToolScope): void {
  const { errorByCode, schemas, atPath, warnAt } = scope;
  const base = ['tools', name];
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
}
