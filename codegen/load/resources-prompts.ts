/**
 * Stage 1 for the resources and prompts of tools.yaml: their references (scopes, errors), URI
 * templates and variables, checked like a tool's, each problem at its place, and their models.
 */
import { uriTemplateProblem, parseUriTemplate } from '../../core/uri-template.ts';
import { hint } from './did-you-mean.ts';
import { byCodePoint, section, strings } from './raw-values.ts';
import type { ArgumentModel, ErrorModel, PromptModel, ResourceModel } from './model.ts';
import { isPlainObject } from '../../core/plain-object.ts';

type Path = (string | number)[];
type Report = (p: Path, message: string, key?: boolean) => void;

export interface RawArgument {
  description?: string;
  complete?: boolean;
  required?: boolean;
}

export interface RawResource {
  uri?: string;
  uri_template?: string;
  title?: string;
  description?: string;
  mime_type?: string;
  scopes?: string[];
  errors?: string[];
  variables?: Record<string, RawArgument>;
  cache?: { ttl_ms: number; scope: 'public' | 'private' };
}

export interface RawPrompt {
  title?: string;
  description?: string;
  scopes?: string[];
  errors?: string[];
  arguments?: Record<string, RawArgument>;
}

/** What the feature checks need from the rest of the file. */
export interface FeatureScope {
  scopeNames: ReadonlySet<string>;
  errorByCode: ReadonlyMap<string, ErrorModel>;
  /** Type names already taken (by $defs and tools), with who took them. */
  typeNames: Map<string, string>;
  pascalCase(name: string): string;
  atPath: Report;
}

function checkReferences(kind: 'resource' | 'prompt', name: string, raw: { scopes?: unknown; errors?: unknown }, scope: FeatureScope): void {
  const base = [`${kind}s`, name];
  strings(raw.scopes).forEach((s, i) => {
    if (!scope.scopeNames.has(s))
      scope.atPath([...base, 'scopes', i], `${kind} ${name} requires scope ${s}, which is not declared under scopes${hint(s, scope.scopeNames)}`);
  });
  strings(raw.errors).forEach((code, i) => {
    const declared = scope.errorByCode.get(code);
    if (!declared)
      scope.atPath([...base, 'errors', i], `${kind} ${name} raises error ${code}, which is not declared under errors${hint(code, scope.errorByCode.keys())}`);
    else if (declared.surface !== 'tool')
      scope.atPath(
        [...base, 'errors', i],
        `${kind} ${name} lists error ${code}, but its surface is ${declared.surface}; a handler can raise only surface: tool errors`,
      );
  });
}

function claimTypeNames(kind: 'resource' | 'prompt', name: string, typeName: string, suffixes: string[], scope: FeatureScope): void {
  for (const suffix of suffixes) {
    const type = `${typeName}${suffix}`;
    const owner = scope.typeNames.get(type);
    if (owner) scope.atPath([`${kind}s`, name], `${kind} ${name} generates a type named ${type}, which ${owner} also generates; rename one`, true);
    else scope.typeNames.set(type, `${kind} ${name}`);
  }
}

function argumentModels(raw: Record<string, RawArgument> | undefined, required: (name: string, arg: RawArgument) => boolean): ArgumentModel[] {
  return Object.entries(isPlainObject(raw) ? raw : {})
    .filter(([, a]) => isPlainObject(a))
    .map(([name, a]) => ({ name, description: a.description ?? '', complete: a.complete === true, required: required(name, a) }));
}

export function loadResources(raw: unknown, scope: FeatureScope): ResourceModel[] {
  const out: ResourceModel[] = [];
  const uris = new Map<string, string>();
  for (const [name, r] of section<RawResource>(raw).sort(([a], [b]) => byCodePoint(a, b))) {
    const base = ['resources', name];
    checkReferences('resource', name, r, scope);
    const typeName = `${scope.pascalCase(name)}Resource`;
    claimTypeNames('resource', name, typeName, ['Variables', 'Handler', 'ErrorCode'], scope);
    let variables: ArgumentModel[] = [];
    if ((r.uri === undefined) === (r.uri_template === undefined))
      scope.atPath(base, `resource ${name} needs exactly one of uri (a fixed URI) and uri_template (a URI with {variables})`, true);
    const address = r.uri ?? r.uri_template;
    if (typeof address === 'string') {
      const other = uris.get(address);
      if (other) scope.atPath([...base, r.uri !== undefined ? 'uri' : 'uri_template'], `resource ${name} has the same URI as resource ${other}`);
      uris.set(address, name);
    }
    if (typeof r.uri_template === 'string') {
      const problem = uriTemplateProblem(r.uri_template);
      if (problem) scope.atPath([...base, 'uri_template'], `uri_template of resource ${name} ${problem}`);
      else {
        const names = parseUriTemplate(r.uri_template).variables;
        const declared = argumentModels(r.variables, () => true);
        for (const v of names)
          if (!declared.some((d) => d.name === v))
            scope.atPath([...base, 'uri_template'], `{${v}} of resource ${name} needs an entry under variables, with a description`);
        for (const d of declared)
          if (!names.includes(d.name)) scope.atPath([...base, 'variables', d.name], `variable ${d.name} of resource ${name} is not in its uri_template`, true);
        variables = names.flatMap((v) => declared.filter((d) => d.name === v));
      }
    } else if (r.variables !== undefined) scope.atPath([...base, 'variables'], `resource ${name} has a fixed uri: variables belong to a uri_template`, true);
    out.push({
      name,
      typeName,
      ...(typeof r.uri === 'string' && { uri: r.uri }),
      ...(typeof r.uri_template === 'string' && { uriTemplate: r.uri_template }),
      ...(r.title !== undefined && { title: r.title }),
      description: r.description ?? '',
      ...(r.mime_type !== undefined && { mimeType: r.mime_type }),
      scopes: strings(r.scopes),
      errors: [...strings(r.errors)].sort(),
      variables,
      cache: r.cache ? { ttlMs: r.cache.ttl_ms, scope: r.cache.scope } : { ttlMs: 0, scope: 'private' },
    });
  }
  return out;
}

export function loadPrompts(raw: unknown, scope: FeatureScope): PromptModel[] {
  const out: PromptModel[] = [];
  for (const [name, p] of section<RawPrompt>(raw).sort(([a], [b]) => byCodePoint(a, b))) {
    checkReferences('prompt', name, p, scope);
    const typeName = `${scope.pascalCase(name)}Prompt`;
    claimTypeNames('prompt', name, typeName, ['Arguments', 'Handler', 'ErrorCode'], scope);
    out.push({
      name,
      typeName,
      ...(p.title !== undefined && { title: p.title }),
      description: p.description ?? '',
      scopes: strings(p.scopes),
      errors: [...strings(p.errors)].sort(),
      arguments: argumentModels(p.arguments, (_, a) => a.required === true),
    });
  }
  return out;
}
