/**
 * `x-mcp-header` (SEP-2243, HTTP header standardization): an argument's schema may name a header,
 * `x-mcp-header: Region`, and clients on Streamable HTTP then send the argument's value as
 * `Mcp-Param-Region` too, so that load balancers and gateways can route on it without reading
 * the body. Clients MUST drop a tool whose annotation breaks the SEP's rules, so the generator
 * refuses such a tool here, where the author can fix it, instead of letting it vanish from clients.
 *
 * The rules (SEP-2243, "Schema Extension"): the value is a non-empty HTTP field-name token
 * (RFC 9110 `1*tchar`), unique among the tool's annotations ignoring case, and it annotates an
 * argument of a primitive type (string, number, integer, boolean; null is allowed beside one, as
 * a null value sends no header). It may be at any depth; this generator asks that it be reached
 * from the root through `properties` only (directly or through a shared $defs shape, which
 * clients get inlined), because a value inside a list or behind a reference a client may not
 * resolve is not one value a client can find.
 */
import { refName } from './defs.ts';
import type { JSONSchema } from './json-schema.ts';
import { childSchemas, isSchemaNode, type SchemaNode } from './schema-walk.ts';

type Path = (string | number)[];

export const MCP_HEADER = 'x-mcp-header';

/** RFC 9110 token: the characters a header field name may have. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const PRIMITIVES = new Set(['string', 'number', 'integer', 'boolean']);

/** One `x-mcp-header` annotation, where it is written and which argument it is on. */
export interface HeaderUse {
  header: unknown;
  /** Where the annotation is written in tools.yaml (a tool's schema, or a shared $defs entry). */
  at: Path;
  /** The argument's property path (`region`, `target.region`); undefined when not reached through properties only. */
  argument?: string;
  /** The argument's schema, with a shared shape it refers to resolved. */
  schema: SchemaNode;
}

/**
 * Every annotation in a tool's schema as declared (`base` is its place in the file), following
 * references to the file's shared `$defs` (`defs`, acyclic) into their own place.
 */
export function headerUses(schema: JSONSchema, base: Path, defs: Readonly<Record<string, JSONSchema>>, local: ReadonlySet<string>): HeaderUse[] {
  const uses: HeaderUse[] = [];
  const visit = (node: SchemaNode, at: Path, argument: string[] | undefined) => {
    const shared = refName(node.$ref);
    const target = shared !== undefined && !local.has(shared) ? defs[shared] : undefined;
    if (MCP_HEADER in node)
      uses.push({
        header: node[MCP_HEADER],
        at: [...at, MCP_HEADER],
        ...(argument && { argument: argument.join('.') }),
        schema: target ? { ...target, ...node } : node,
      });
    if (target) visit(target, ['$defs', shared!], argument);
    for (const child of childSchemas(node)) {
      const [key, name] = child.path;
      const next = argument && key === 'properties' ? [...argument, String(name)] : undefined;
      visit(child.schema, [...at, ...child.path], next);
    }
  };
  if (isSchemaNode(schema)) visit(schema, base, []);
  return uses;
}

/** True when a schema only admits primitive values (null aside), so a header can carry it. */
function isPrimitive(schema: SchemaNode): boolean {
  const types = typeof schema.type === 'string' ? [schema.type] : Array.isArray(schema.type) ? schema.type : undefined;
  if (types) return types.some((t) => PRIMITIVES.has(t as string)) && types.every((t) => t === 'null' || PRIMITIVES.has(t as string));
  const values = schema.const !== undefined ? [schema.const] : Array.isArray(schema.enum) ? schema.enum : undefined;
  if (values) return values.some((v) => v !== null) && values.every((v) => v === null || ['string', 'number', 'boolean'].includes(typeof v));
  for (const key of ['anyOf', 'oneOf'])
    if (Array.isArray(schema[key])) return (schema[key] as unknown[]).every((b) => isSchemaNode(b) && (b.type === 'null' || isPrimitive(b)));
  return false;
}

/** What is wrong with each annotation of one tool's input schema, as problems at their places. */
export function headerProblems(tool: string, uses: readonly HeaderUse[]): { at: Path; message: string }[] {
  const problems: { at: Path; message: string }[] = [];
  const seen = new Map<string, string>();
  const rejected = `; clients drop a tool whose ${MCP_HEADER} breaks the rules of SEP-2243`;
  for (const use of uses) {
    const { header } = use;
    if (typeof header !== 'string' || !TOKEN.test(header)) {
      problems.push({
        at: use.at,
        message: `${MCP_HEADER} of tool ${tool} must be a header name (letters, digits and !#$%&'*+-.^_\`|~, not empty), e.g. Region: the header sent is Mcp-Param-<name>${rejected}`,
      });
      continue;
    }
    if (use.argument === undefined) {
      problems.push({
        at: use.at,
        message: `${MCP_HEADER} ${header} of tool ${tool} must annotate an argument reached through properties from the input's root (not a list item, a branch or a local $defs entry), so that clients can find its one value`,
      });
      continue;
    }
    if (!isPrimitive(use.schema))
      problems.push({
        at: use.at,
        message: `${MCP_HEADER} ${header} is on argument ${use.argument} of tool ${tool}, which is not a string, number, integer or boolean; only such a value can be sent as a header${rejected}`,
      });
    const other = seen.get(header.toLowerCase());
    if (other !== undefined && other !== use.argument)
      problems.push({
        at: use.at,
        message: `${MCP_HEADER} ${header} of tool ${tool} is also the header of argument ${other} (names are compared ignoring case); each argument needs its own header${rejected}`,
      });
    else seen.set(header.toLowerCase(), use.argument);
  }
  return problems;
}
