/**
 * The resources, prompts and apps part of the published contract: what a client that reads a
 * resource or gets a prompt relies on. A resource's URI (or template), its MIME type and its scopes; a
 * prompt's arguments (which are required) and scopes; an app's URI (a host that rendered a result
 * reads it again). Titles and descriptions are annotations.
 */
import type { AppModel, PromptModel, ResourceModel } from '../load/model.ts';
import { own } from './json.ts';
import { compareText, sortedUnique, type AppContract, type Break, type PromptContract, type ResourceContract } from './snapshot.ts';

export type { AppContract, PromptContract, ResourceContract };

const byName = <T extends { name: string }>(items: readonly T[]) => [...items].sort((a, b) => compareText(a.name, b.name));

export function resourceContracts(resources: readonly ResourceModel[]): Record<string, ResourceContract> {
  return Object.fromEntries(
    byName(resources).map((r) => [
      r.name,
      { address: r.uri ?? r.uriTemplate!, ...(r.mimeType !== undefined && { mimeType: r.mimeType }), scopes: sortedUnique(r.scopes) },
    ]),
  );
}

export function promptContracts(prompts: readonly PromptModel[]): Record<string, PromptContract> {
  return Object.fromEntries(
    byName(prompts).map((p) => [
      p.name,
      { arguments: Object.fromEntries(p.arguments.map((a) => [a.name, { required: a.required }])), scopes: sortedUnique(p.scopes) },
    ]),
  );
}

export function appContracts(apps: readonly AppModel[]): Record<string, AppContract> {
  return Object.fromEntries(byName(apps).map((a) => [a.name, { uri: a.uri }]));
}

function scopeBreaks(where: string, was: string[], now: string[], what: string): Break[] {
  return now
    .filter((s) => !was.includes(s))
    .map((s) => ({ where: `${where}, scopes`, message: `now requires scope ${s}; tokens granted without it lose access to the ${what}` }));
}

export function resourceBreaks(published: Record<string, ResourceContract> = {}, current: Record<string, ResourceContract> = {}): Break[] {
  const breaks: Break[] = [];
  for (const [name, was] of Object.entries(published)) {
    const where = `resource ${name}`;
    const now = own(current, name);
    if (!now) {
      breaks.push({ where, message: `resource removed; clients that read ${was.address} get resource-not-found` });
      continue;
    }
    if (now.address !== was.address)
      breaks.push({ where, message: `URI changed from ${was.address} to ${now.address}; clients that kept the old one get resource-not-found` });
    if (now.mimeType !== was.mimeType)
      breaks.push({
        where,
        message: `MIME type changed from ${was.mimeType ?? 'none'} to ${now.mimeType ?? 'none'}; clients parse the content as the old type`,
      });
    breaks.push(...scopeBreaks(where, was.scopes, now.scopes, 'resource'));
  }
  return sorted(breaks);
}

const sorted = (breaks: Break[]) => breaks.sort((a, b) => compareText(a.where, b.where));

export function appBreaks(published: Record<string, AppContract> = {}, current: Record<string, AppContract> = {}): Break[] {
  const breaks: Break[] = [];
  for (const [name, was] of Object.entries(published)) {
    const now = own(current, name);
    if (!now) breaks.push({ where: `app ${name}`, message: `app removed; hosts that rendered a result in ${was.uri} get resource-not-found` });
    else if (now.uri !== was.uri)
      breaks.push({ where: `app ${name}`, message: `URI changed from ${was.uri} to ${now.uri}; hosts that kept the old one get resource-not-found` });
  }
  return sorted(breaks);
}

export function promptBreaks(published: Record<string, PromptContract> = {}, current: Record<string, PromptContract> = {}): Break[] {
  const breaks: Break[] = [];
  for (const [name, was] of Object.entries(published)) {
    const where = `prompt ${name}`;
    const now = own(current, name);
    if (!now) {
      breaks.push({ where, message: 'prompt removed; clients that offer it get unknown-prompt' });
      continue;
    }
    for (const arg of Object.keys(was.arguments))
      if (!own(now.arguments, arg)) breaks.push({ where: `${where}, argument ${arg}`, message: 'argument removed; clients that send it are refused' });
    for (const [arg, spec] of Object.entries(now.arguments)) {
      const before = own(was.arguments, arg);
      if (spec.required && !before?.required)
        breaks.push({
          where: `${where}, argument ${arg}`,
          message: `${before ? 'now required' : 'new required argument'}; clients that leave it out are refused`,
        });
    }
    breaks.push(...scopeBreaks(where, was.scopes, now.scopes, 'prompt'));
  }
  return sorted(breaks);
}
