/**
 * The published contract of a tool server — the part of tools.yaml that clients rely on — and the
 * check that a new declaration keeps it. A snapshot of the contract is committed at each release;
 * `breakingChanges` compares it with the current declaration so that a change which would break
 * existing clients needs a version bump that says so.
 *
 * Schemas are compared by meaning, not by text: each schema is split into one variant per JSON
 * type it accepts (so `type: [string, null]` and `anyOf: [{type: string}, {type: null}]` are the
 * same), and each variant is checked against its counterpart. Arguments may only widen (clients
 * send what they sent yesterday); results may only narrow (clients parse what they parsed
 * yesterday), except that new result fields are always allowed.
 */
import { canonical, sortKeys, type Json } from './json.ts';
import type { JSONSchema } from '../load/json-schema.ts';
import { withLocalDefsInlined } from '../load/defs.ts';
import { MCP_HEADER } from '../load/mcp-header.ts';
import { isPlainObject } from '../../core/plain-object.ts';

export interface ContractSource {
  server: { name: string; version: string };
  tools: { name: string; scopes: string[]; inputSchema: JSONSchema; outputSchema?: JSONSchema; errors: string[] }[];
  errors: { code: string; message: string; surface: string; status?: number; rpcCode?: number }[];
}

export interface ToolContract {
  /** Scopes a token needs, sorted. */
  scopes: string[];
  input: JSONSchema;
  output?: JSONSchema;
  /** Error codes the tool declares. Recorded for reviewers, never compared: dropping one breaks nobody. */
  errors: string[];
  /**
   * The server.version the tool first appeared under. While server.version is still that version
   * the tool is unreleased and may change freely (gate.ts); absent for tools recorded before this
   * field existed, which count as released.
   */
  since?: string;
}

export interface ErrorContract {
  message: string;
  surface: string;
  status?: number;
  rpcCode?: number;
}

/** What clients rely on, as committed in a snapshot file (stable key order, JSON-serialisable). */
export interface Contract {
  version: string;
  server: string;
  tools: Record<string, ToolContract>;
  errors: Record<string, ErrorContract>;
  /** Present when the server declares any (snapshots written before resources and prompts lack them). */
  resources?: Record<string, ResourceContract>;
  prompts?: Record<string, PromptContract>;
  /** MCP Apps, when the server declares any: hosts keep an app's URI (a rendered result reads it again). */
  apps?: Record<string, AppContract>;
}

/** An app as hosts rely on it: where it is (compared in resources-prompts.ts). */
export interface AppContract {
  uri: string;
}

/** A resource as clients rely on it (compared in resources-prompts.ts). */
export interface ResourceContract {
  /** The fixed URI, or the URI template. */
  address: string;
  mimeType?: string;
  scopes: string[];
}

/** A prompt as clients rely on it (compared in resources-prompts.ts). */
export interface PromptContract {
  arguments: Record<string, { required: boolean }>;
  scopes: string[];
}

export interface Break {
  where: string;
  message: string;
}

/** A contract snapshot file that cannot be read: the file is at fault, not the declaration. */
export class ContractFileError extends Error {
  constructor(
    readonly file: string,
    detail: string,
  ) {
    super(`${file}: ${detail}`);
    this.name = 'ContractFileError';
  }
}

// ---------------------------------------------------------------------------------------------
// Building the contract

// Annotations tell people and models what a value means; changing them breaks no client.
export const ANNOTATIONS = new Set(['description', 'title', 'examples', '$comment', 'deprecated', 'readOnly', 'writeOnly']);
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);
const SCHEMA_LISTS = new Set(['anyOf', 'oneOf', 'allOf', 'prefixItems']);
const SCHEMA_VALUES = new Set([
  'items',
  'additionalProperties',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
  'unevaluatedProperties',
  'unevaluatedItems',
]);
// Lists whose order means nothing; sorted so that reordering them leaves the snapshot alone.
const SETS = new Set(['required', 'type', 'enum']);

/** A schema without annotations, walked by structure so that a property named `description` stays. */
function contractSchema(schema: Json): Json {
  if (!isPlainObject(schema)) return schema;
  const entries: [string, Json][] = [];
  for (const [key, value] of Object.entries(schema)) {
    // x-mcp-header stays: gateways route on the header it names (SEP-2243), so it is contract.
    if (ANNOTATIONS.has(key) || (key.startsWith('x-') && key !== MCP_HEADER)) continue;
    if (SCHEMA_MAPS.has(key) && isPlainObject(value)) entries.push([key, Object.fromEntries(Object.entries(value).map(([k, v]) => [k, contractSchema(v)]))]);
    else if ((SCHEMA_LISTS.has(key) || SCHEMA_VALUES.has(key)) && Array.isArray(value)) entries.push([key, value.map(contractSchema)]);
    else if (SCHEMA_VALUES.has(key)) entries.push([key, contractSchema(value)]);
    else if (SETS.has(key) && Array.isArray(value)) entries.push([key, [...value].sort((a, b) => compareText(canonical(a), canonical(b)))]);
    else entries.push([key, value]);
  }
  return Object.fromEntries(entries);
}

export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function sortedUnique(values: string[]): string[] {
  return [...new Set(values)].sort(compareText);
}

type SourceTool = ContractSource['tools'][number];

/** What clients rely on of one tool. */
export function toolContract(t: SourceTool): ToolContract {
  return {
    scopes: sortedUnique(t.scopes),
    input: contractSchema(withLocalDefsInlined(t.inputSchema)) as JSONSchema,
    ...(t.outputSchema && { output: contractSchema(withLocalDefsInlined(t.outputSchema)) as JSONSchema }),
    errors: sortedUnique(t.errors),
  };
}

/** The contract a declaration publishes; `entry` gives a tool's part (toolContract, or one kept from an earlier run). */
export function contractOf(src: ContractSource, entry: (t: SourceTool) => ToolContract = toolContract): Contract {
  const tools = [...src.tools].sort((a, b) => compareText(a.name, b.name));
  const errors = [...src.errors].sort((a, b) => compareText(a.code, b.code));
  return {
    version: src.server.version,
    server: src.server.name,
    tools: Object.fromEntries(tools.map((t): [string, ToolContract] => [t.name, entry(t)])),
    errors: Object.fromEntries(
      errors.map((e): [string, ErrorContract] => [
        e.code,
        {
          message: e.message,
          surface: e.surface,
          ...(e.status !== undefined && { status: e.status }),
          ...(e.rpcCode !== undefined && { rpcCode: e.rpcCode }),
        },
      ]),
    ),
  };
}

/** Stable, pretty JSON text of a contract for the committed snapshot (sorted keys, 2-space indent, trailing newline). */
export function renderContract(c: Contract): string {
  return JSON.stringify(sortKeys(c), null, 2) + '\n';
}

/** Reads a committed snapshot; throws a ContractFileError naming the file and every problem in its shape. */
export function parseContract(text: string, file: string): Contract {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new ContractFileError(file, `not valid JSON (${(err as Error).message})`);
  }
  const problems = shapeProblems(data);
  if (problems.length) throw new ContractFileError(file, `not a contract snapshot:\n${problems.map((p) => `  ${p}`).join('\n')}`);
  const contract = data as Contract;
  // A snapshot written before local $defs were inlined compares as if it had been.
  for (const tool of Object.values(contract.tools)) {
    tool.input = withLocalDefsInlined(tool.input);
    if (tool.output) tool.output = withLocalDefsInlined(tool.output);
  }
  return contract;
}

function shapeProblems(data: unknown): string[] {
  if (!isPlainObject(data)) return ['the top level must be an object with version, server, tools and errors'];
  const problems: string[] = [];
  const isStrings = (v: unknown) => Array.isArray(v) && v.every((s) => typeof s === 'string');
  if (typeof data.version !== 'string') problems.push('version must be a string');
  if (typeof data.server !== 'string') problems.push('server must be a string');
  if (!isPlainObject(data.tools)) problems.push('tools must be an object of tool name -> tool');
  else
    for (const [name, tool] of Object.entries(data.tools)) {
      if (!isPlainObject(tool)) problems.push(`tools.${name} must be an object`);
      else {
        if (!isStrings(tool.scopes)) problems.push(`tools.${name}.scopes must be a list of strings`);
        if (!isStrings(tool.errors)) problems.push(`tools.${name}.errors must be a list of strings`);
        if (!isPlainObject(tool.input)) problems.push(`tools.${name}.input must be a JSON Schema object`);
        if (tool.output !== undefined && !isPlainObject(tool.output)) problems.push(`tools.${name}.output must be a JSON Schema object`);
        if (tool.since !== undefined && typeof tool.since !== 'string') problems.push(`tools.${name}.since must be a version string`);
      }
    }
  for (const key of ['resources', 'prompts', 'apps'] as const)
    if (data[key] !== undefined && !isPlainObject(data[key])) problems.push(`${key} must be an object of name -> ${key.slice(0, -1)}`);
  if (!isPlainObject(data.errors)) problems.push('errors must be an object of error code -> error');
  else
    for (const [code, e] of Object.entries(data.errors)) {
      if (!isPlainObject(e)) problems.push(`errors.${code} must be an object`);
      else {
        if (typeof e.message !== 'string') problems.push(`errors.${code}.message must be a string`);
        if (typeof e.surface !== 'string') problems.push(`errors.${code}.surface must be a string`);
        if (e.status !== undefined && typeof e.status !== 'number') problems.push(`errors.${code}.status must be a number`);
        if (e.rpcCode !== undefined && typeof e.rpcCode !== 'number') problems.push(`errors.${code}.rpcCode must be a number`);
      }
    }
  return problems;
}

// ---------------------------------------------------------------------------------------------
// Schema variants: one per JSON type a schema accepts
