/**
 * Schema portability lint: JSON Schema that is valid, and that this server validates correctly,
 * can still be misread or rejected by the clients and model providers a tool list is forwarded
 * to. Each finding names the construct, who mishandles it and the portable way to say the same.
 */
import type { JSONSchema } from '../load/json-schema.ts';
import { isPlainObject } from '../../core/plain-object.ts';

export interface PortabilityFinding {
  tool: string;
  schema: 'input' | 'output';
  /** Where in the schema, e.g. `leads[].email`; `(root)` for the schema itself. */
  path: string;
  rule: string;
  severity: 'warning' | 'error';
  message: string;
}

type Schema = Record<string, unknown>;
type Report = (path: string, rule: string, message: string) => void;

// The formats OpenAI structured outputs accepts; others have made whole tool lists fail there.
const PORTABLE_FORMATS = new Set(['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uuid']);

// Valid JSON Schema that most clients drop when they turn a schema into a model's tool
// declaration, so the model never learns the rule and the server rejects its calls.
const CONDITIONALS = [
  'allOf',
  'not',
  'if',
  'then',
  'else',
  'dependentRequired',
  'dependentSchemas',
  'patternProperties',
  'propertyNames',
  'unevaluatedProperties',
];

/** The rules that look at one schema node (not at its subschemas). */
function lintNode(node: Schema, path: string, report: Report): void {
  if (Array.isArray(node.type))
    report(
      path,
      'type-union',
      `type is a list (${node.type.join(', ')}); Gemini's function declarations (an OpenAPI subset) and several MCP clients read type as one string and reject or misread a list. ` +
        'Portable: anyOf with one branch per type, each with a single type, e.g. anyOf: [{ type: string }, { type: "null" }].',
    );
  for (const key of ['$ref', '$defs', 'definitions'])
    if (key in node)
      report(
        path,
        'ref',
        `${key} is used; Gemini rejects schema references and many MCP clients do not resolve them, so the model sees an empty shape. ` +
          'Portable: write the shape inline (the generator inlines shared shapes from tools.yaml; this is a hand-written schema).',
      );
  if (typeof node.format === 'string' && !PORTABLE_FORMATS.has(node.format))
    report(
      path,
      'format',
      `format "${node.format}" is not one OpenAI structured outputs supports (${[...PORTABLE_FORMATS].join(', ')}); some OpenAI models reject the whole tool for it. ` +
        'Portable: drop the format and use a pattern, or describe the expected form in the description.',
    );
  for (const union of ['anyOf', 'oneOf'])
    if (Array.isArray(node[union]))
      node[union].forEach((branch: unknown, i: number) => {
        if (isPlainObject(branch) && branch.type === undefined)
          report(
            `${path}<${union}[${i}]>`,
            'anyof-branch-type',
            `this ${union} branch has no type of its own; Gemini answers 400 for such a branch and other clients guess. Portable: give every branch its own type.`,
          );
      });
  if (Array.isArray(node.oneOf))
    report(
      path,
      'one-of',
      'oneOf is used; several MCP clients and model providers treat it as anyOf or drop it, so its exclusivity is not enforced where the model sees it. ' +
        'Portable: anyOf, with branches that cannot both match (e.g. a distinct const in each).',
    );
  for (const key of CONDITIONALS)
    if (key in node)
      report(
        path,
        'conditional',
        `${key} is used; most MCP clients and model providers ignore it when they build the tool declaration, so the model cannot see the rule and calls fail validation. ` +
          'Portable: a flat schema (properties, required, enum) and the rule stated in the description.',
      );
  const types = Array.isArray(node.type) ? node.type : [node.type];
  if (types.includes('array') && node.items === undefined)
    report(
      path,
      'array-items',
      'an array without items; OpenAI rejects such a schema and other clients show the model an untyped list. Portable: declare items, even as a broad schema.',
    );
}

/** Every subschema of a node with its path, in the notation of the contract check. */
function children(node: Schema, path: string): [string, unknown][] {
  const at = (name: string) => (path ? `${path}.${name}` : name);
  const found: [string, unknown][] = [];
  if (isPlainObject(node.properties)) for (const [name, v] of Object.entries(node.properties)) found.push([at(name), v]);
  // Schemas that are not one property's value are named in angle brackets, like anyOf branches.
  for (const key of ['patternProperties', '$defs', 'definitions', 'dependentSchemas'])
    if (isPlainObject(node[key])) for (const [name, v] of Object.entries(node[key])) found.push([`${path}<${key}.${name}>`, v]);
  found.push([`${path}[]`, node.items]);
  if (Array.isArray(node.prefixItems)) node.prefixItems.forEach((item: unknown, i: number) => found.push([`${path}[${i}]`, item]));
  found.push([at('*'), node.additionalProperties]);
  for (const key of ['anyOf', 'oneOf', 'allOf'])
    if (Array.isArray(node[key])) node[key].forEach((b: unknown, i: number) => found.push([`${path}<${key}[${i}]>`, b]));
  for (const key of ['not', 'if', 'then', 'else', 'contains', 'propertyNames']) found.push([`${path}<${key}>`, node[key]]);
  return found.filter(([, v]) => isPlainObject(v));
}

function lintSchema(node: Schema, path: string, report: Report): void {
  lintNode(node, path, report);
  for (const [childPath, child] of children(node, path)) lintSchema(child as Schema, childPath, report);
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Findings for every tool's input and output schema, sorted by tool, schema, path and rule. */
export function lintPortability(tools: { name: string; inputSchema: JSONSchema; outputSchema?: JSONSchema }[]): PortabilityFinding[] {
  const findings: PortabilityFinding[] = [];
  for (const tool of tools) {
    const reporter =
      (schema: 'input' | 'output'): Report =>
      (path, rule, message) =>
        findings.push({ tool: tool.name, schema, path: path || '(root)', rule, severity: 'warning', message });
    if (tool.inputSchema.type !== 'object')
      findings.push({
        tool: tool.name,
        schema: 'input',
        path: '(root)',
        rule: 'input-root',
        severity: 'error',
        message: `the input schema's root is not type: "object" (type: ${tool.inputSchema.type === undefined ? 'none' : JSON.stringify(tool.inputSchema.type)}); MCP requires inputSchema to be type: "object", and clients refuse the tool otherwise. Put the arguments in the properties of an object.`,
      });
    lintSchema(tool.inputSchema, '', reporter('input'));
    if (tool.outputSchema) lintSchema(tool.outputSchema, '', reporter('output'));
  }
  return findings.sort(
    (a, b) =>
      compareText(a.tool, b.tool) ||
      compareText(a.schema, b.schema) ||
      compareText(a.path, b.path) ||
      compareText(a.rule, b.rule) ||
      compareText(a.message, b.message),
  );
}
