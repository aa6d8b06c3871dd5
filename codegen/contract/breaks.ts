/** The changes from a published contract to the current one that would break existing clients. */
import { canonical, own, type Json } from './json.ts';
import { MCP_HEADER } from '../load/mcp-header.ts';
import type { Break, Contract, ErrorContract } from './snapshot.ts';
import { ANNOTATIONS, compareText } from './snapshot.ts';
import { counterpart, describeTypes, describeVariant, variantLabel, variantsOf, type Variant } from './variants.ts';
import { isPlainObject } from '../../core/plain-object.ts';
type Direction = 'input' | 'output';

interface Found {
  path: string;
  message: string;
}

const LOWER_LIMITS = ['minimum', 'exclusiveMinimum', 'minLength', 'minItems', 'minProperties'];
const UPPER_LIMITS = ['maximum', 'exclusiveMaximum', 'maxLength', 'maxItems', 'maxProperties'];
const EXACT_CONSTRAINTS = ['pattern', 'format'];
// Keywords the comparison understands; a change to any other constraint is reported for review.
const UNDERSTOOD = new Set([
  ...LOWER_LIMITS,
  ...UPPER_LIMITS,
  ...EXACT_CONSTRAINTS,
  ...'enum multipleOf uniqueItems properties required additionalProperties items prefixItems default'.split(' '),
]);

const WHY: Record<Direction, string> = {
  input: 'arguments clients send today may be rejected',
  output: 'results may fall outside what clients were told to expect',
};

function child(path: string, name: string): string {
  return path ? `${path}.${name}` : name;
}

function show(value: Json): string {
  return value === undefined ? 'none' : JSON.stringify(value);
}

/** Arguments may only accept more; results may only produce less (new fields aside). */
function compareSchemas(published: Json, current: Json, direction: Direction, path: string, found: Found[]): void {
  if (direction === 'input' && isPlainObject(published) && published.default !== undefined) {
    // Clients that omit the argument get the default; changing it changes what their calls do.
    const now = isPlainObject(current) ? current.default : undefined;
    if (canonical(now) !== canonical(published.default))
      found.push({ path, message: `default changed from ${show(published.default)} to ${show(now)}; calls that omit it now behave differently` });
  }
  const [narrow, wide] = direction === 'input' ? [variantsOf(published), variantsOf(current)] : [variantsOf(current), variantsOf(published)];
  for (const v of narrow) {
    const at = path + variantLabel(narrow, v);
    const w = counterpart(wide, narrow, v);
    if (!w) {
      const message =
        direction === 'input'
          ? `no longer accepts ${describeVariant(v)} (now accepts ${describeTypes(wide)}); clients that send it are rejected`
          : `may now be ${describeVariant(v)} (was ${describeTypes(wide)}), which clients were not told to expect`;
      found.push({ path: at, message });
    } else if (direction === 'input') compareVariants(v, w, direction, at, found);
    else compareVariants(w, v, direction, at, found);
  }
}

/** Compares two variants of the same type, published first. */
function compareVariants(published: Variant, current: Variant, direction: Direction, path: string, found: Found[]): void {
  const [narrow, wide] = direction === 'input' ? [published.schema, current.schema] : [current.schema, published.schema];
  const change = (keyword: string) => `${keyword} ${describeChange(published.schema[keyword], current.schema[keyword])}; ${WHY[direction]}`;

  if (Array.isArray(wide.enum)) {
    const allowed = new Set(wide.enum.map(canonical));
    const extra = Array.isArray(narrow.enum) ? narrow.enum.filter((v) => !allowed.has(canonical(v))) : undefined;
    if (!extra)
      found.push({
        path,
        message:
          direction === 'input'
            ? `now accepts only ${wide.enum.map(show).join(', ')}; other values clients send are rejected`
            : `was limited to ${wide.enum.map(show).join(', ')} and now may be any value; clients were not told to expect that`,
      });
    else if (extra.length)
      found.push({
        path,
        message:
          direction === 'input'
            ? `no longer accepts ${extra.map(show).join(', ')}; clients that send ${extra.length === 1 ? 'it' : 'them'} are rejected`
            : `may now be ${extra.map(show).join(', ')}, ${extra.length === 1 ? 'a value' : 'values'} clients were not told to expect`,
      });
  }
  // A limit on the wide side must be no tighter than the narrow side's; a missing limit is the loosest.
  for (const k of LOWER_LIMITS) if (num(wide[k]) > num(narrow[k])) found.push({ path, message: change(k) });
  for (const k of UPPER_LIMITS) if (num(wide[k], Infinity) < num(narrow[k], Infinity)) found.push({ path, message: change(k) });
  for (const k of EXACT_CONSTRAINTS) if (wide[k] !== undefined && narrow[k] !== wide[k]) found.push({ path, message: change(k) });
  if (typeof wide.multipleOf === 'number' && !(typeof narrow.multipleOf === 'number' && narrow.multipleOf % wide.multipleOf === 0))
    found.push({ path, message: change('multipleOf') });
  if (wide.uniqueItems === true && narrow.uniqueItems !== true) found.push({ path, message: change('uniqueItems') });
  // Adding a header is additive (clients that know SEP-2243 start sending it); changing or
  // dropping one leaves the gateways and load balancers that route on it without it.
  const header = published.schema[MCP_HEADER];
  if (direction === 'input' && typeof header === 'string' && current.schema[MCP_HEADER] !== header)
    found.push({
      path,
      message: `${MCP_HEADER} ${describeChange(header, current.schema[MCP_HEADER] as Json)}; intermediaries that route on Mcp-Param-${header} no longer get it`,
    });
  for (const k of new Set([...Object.keys(published.schema), ...Object.keys(current.schema)]))
    if (!UNDERSTOOD.has(k) && !ANNOTATIONS.has(k) && !k.startsWith('x-') && canonical(published.schema[k]) !== canonical(current.schema[k]))
      found.push({
        path,
        message: `${k} changed; this check cannot tell whether that is compatible, so it counts as breaking until a maintainer says otherwise`,
      });

  compareObjects(published.schema, current.schema, direction, path, found);
  compareArrays(published.schema, current.schema, direction, path, found);
}

function num(value: unknown, absent = -Infinity): number {
  return typeof value === 'number' ? value : absent;
}

function describeChange(before: Json, after: Json): string {
  if (before === undefined) return `added (${show(after)})`;
  if (after === undefined) return `removed (was ${show(before)})`;
  return `changed from ${show(before)} to ${show(after)}`;
}

function compareObjects(published: Record<string, unknown>, current: Record<string, unknown>, direction: Direction, path: string, found: Found[]): void {
  const was = isPlainObject(published.properties) ? published.properties : {};
  const now = isPlainObject(current.properties) ? current.properties : {};
  const wasRequired = new Set(Array.isArray(published.required) ? published.required : []);
  const nowRequired = new Set(Array.isArray(current.required) ? current.required : []);

  for (const name of Object.keys(was)) {
    const at = child(path, name);
    if (Object.hasOwn(now, name)) compareSchemas(was[name], own(now, name), direction, at, found);
    else if (direction === 'output') found.push({ path: at, message: 'result field removed; clients that read it get nothing' });
    // Removing an argument is breaking even where extra properties are allowed: the server would
    // then ignore what clients still send, silently changing what their calls do.
    else
      found.push({
        path: at,
        message:
          current.additionalProperties === false
            ? 'argument removed; clients that still send it are rejected'
            : 'argument removed; clients that still send it are silently ignored',
      });
  }
  if (direction === 'input') {
    for (const name of nowRequired)
      if (!wasRequired.has(name))
        found.push({
          path: child(path, name as string),
          message: Object.hasOwn(was, name as string)
            ? 'optional argument is now required; calls that omit it are rejected'
            : 'new required argument; existing calls do not send it and are rejected',
        });
    if (current.additionalProperties === false && published.additionalProperties !== false)
      found.push({ path, message: 'additionalProperties is now false; undeclared arguments clients send are rejected' });
  } else {
    for (const name of wasRequired)
      if (!nowRequired.has(name) && !(Object.hasOwn(was, name as string) && !Object.hasOwn(now, name as string)))
        found.push({
          path: child(path, name as string),
          message: 'result field was always present and is now optional; clients that read it unconditionally fail',
        });
  }
  // Extra properties' own schema; `false` in a result only forbids new fields, which are additive.
  const wasExtra = published.additionalProperties;
  const nowExtra = current.additionalProperties;
  if (wasExtra !== false && nowExtra !== false && (isPlainObject(wasExtra) || isPlainObject(nowExtra)))
    compareSchemas(wasExtra, nowExtra, direction, child(path, '*'), found);
}

function compareArrays(published: Record<string, unknown>, current: Record<string, unknown>, direction: Direction, path: string, found: Found[]): void {
  if (published.items !== undefined || current.items !== undefined) compareSchemas(published.items, current.items, direction, `${path}[]`, found);
  const was = Array.isArray(published.prefixItems) ? published.prefixItems : [];
  const now = Array.isArray(current.prefixItems) ? current.prefixItems : [];
  for (let i = 0; i < Math.max(was.length, now.length); i++) compareSchemas(was[i], now[i], direction, `${path}[${i}]`, found);
}

// ---------------------------------------------------------------------------------------------
// Comparing contracts

/** Every change from `published` to `current` that would break an existing client, sorted by place. */
export function breakingChanges(published: Contract, current: Contract): Break[] {
  const breaks: Break[] = [];
  for (const [name, was] of Object.entries(published.tools)) {
    const tool = `tool ${name}`;
    const now = own(current.tools, name);
    if (!now) {
      breaks.push({ where: tool, message: 'tool removed; clients that call it get an unknown-tool error' });
      continue;
    }
    for (const scope of now.scopes)
      if (!was.scopes.includes(scope))
        breaks.push({ where: `${tool}, scopes`, message: `now requires scope ${scope}; tokens granted without it lose access to the tool` });

    const found: Found[] = [];
    compareSchemas(was.input, now.input, 'input', '', found);
    breaks.push(...found.map((f) => ({ where: f.path ? `${tool}, argument ${f.path}` : `${tool}, arguments`, message: f.message })));

    if (was.output && !now.output)
      breaks.push({ where: `${tool}, result`, message: 'output schema removed; clients that rely on structured results no longer get them described' });
    else if (was.output && now.output) {
      const results: Found[] = [];
      compareSchemas(was.output, now.output, 'output', '', results);
      breaks.push(...results.map((f) => ({ where: f.path ? `${tool}, result field ${f.path}` : `${tool}, result`, message: f.message })));
    }
  }
  breaks.push(...errorCatalogBreaks(published.errors, current.errors));
  return sortBreaks(breaks);
}

function errorCatalogBreaks(published: Record<string, ErrorContract>, current: Record<string, ErrorContract>): Break[] {
  const breaks: Break[] = [];
  for (const [code, was] of Object.entries(published)) {
    const where = `error ${code}`;
    const now = own(current, code);
    if (!now) {
      breaks.push({ where, message: 'error code removed from the catalog; clients that handle it never see it again' });
      continue;
    }
    // Byte for byte: clients match these strings, so even a changed space or placeholder counts.
    if (now.message !== was.message)
      breaks.push({
        where,
        message: `message template changed from ${JSON.stringify(was.message)} to ${JSON.stringify(now.message)}; clients that match the text stop matching`,
      });
    if (now.status !== was.status)
      breaks.push({
        where,
        message: `HTTP status changed from ${show(was.status)} to ${show(now.status)}; clients that branch on the status take another path`,
      });
    if (now.rpcCode !== was.rpcCode)
      breaks.push({
        where,
        message: `JSON-RPC code changed from ${show(was.rpcCode)} to ${show(now.rpcCode)}; clients that branch on the code take another path`,
      });
    // The surface decides whether clients see a JSON-RPC error, an HTTP error or an isError result.
    if (now.surface !== was.surface)
      breaks.push({ where, message: `surface changed from ${was.surface} to ${now.surface}; clients receive the error in a different place` });
  }
  return breaks;
}

function sortBreaks(breaks: Break[]): Break[] {
  const unique = new Map(breaks.map((b) => [`${b.where}\n${b.message}`, b]));
  return [...unique.entries()].sort(([a], [b]) => compareText(a, b)).map(([, b]) => b);
}

// ---------------------------------------------------------------------------------------------
// Versions
