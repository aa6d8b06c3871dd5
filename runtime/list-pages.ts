/**
 * tools/list, resources/list, resources/templates/list and prompts/list: every page serialized once
 * at start (the lists are fixed for the server's lifetime), served by an opaque cursor.
 */
import type { ResourceListing, ServerDefinition } from '../core/definition.ts';
import type { Era } from './era.ts';
import type { ErrorFactory } from './errors.ts';
import { withFields } from './jsonrpc.ts';

/** The list methods, each with the field its result carries the items in. */
export type ListMethod = 'tools/list' | 'resources/list' | 'resources/templates/list' | 'prompts/list';

export class ListPages {
  private readonly pages: Record<ListMethod, string[]>;

  constructor(
    definition: ServerDefinition,
    private readonly pageSize: number,
    /** The cache hint of list results at 2026-07-28. */
    private readonly ttlMs: number,
    private readonly errors: ErrorFactory,
    /** The apps' entries (app-resources.ts), listed after the declared resources. */
    apps: readonly ResourceListing[] = [],
  ) {
    this.pages = {
      'tools/list': paginate('tools', definition.toolsList, pageSize),
      'resources/list': paginate('resources', [...(definition.resourcesList ?? []), ...apps], pageSize),
      'resources/templates/list': paginate('resourceTemplates', definition.resourceTemplatesList ?? [], pageSize),
      'prompts/list': paginate('prompts', definition.promptsList ?? [], pageSize),
    };
  }

  /** The page a list request's cursor asks for, serialized; at 2026-07-28 with its cache hint. */
  page(method: ListMethod, params: Record<string, unknown>, era: Era): string {
    const pages = this.pages[method];
    let page = 0;
    if (params.cursor !== undefined) {
      const start = decodeCursor(params.cursor);
      if (start === undefined || start % this.pageSize !== 0 || start / this.pageSize >= pages.length)
        throw this.errors.create('INVALID_PARAMS', { detail: `invalid or expired cursor; call ${method} without a cursor to start again` });
      page = start / this.pageSize;
    }
    const json = pages[page]!;
    return era.stateless ? withFields(json, `"ttlMs":${this.ttlMs},"cacheScope":"public"`) : json;
  }
}

/** A list's result pages, serialized: `{"<field>":[...],"nextCursor":...}` each. */
function paginate(field: string, items: readonly unknown[], pageSize: number): string[] {
  const pages: string[] = [];
  for (let start = 0; start < items.length || start === 0; start += pageSize) {
    const next = start + pageSize < items.length ? { nextCursor: encodeCursor(start + pageSize) } : {};
    pages.push(JSON.stringify({ [field]: items.slice(start, start + pageSize), ...next }));
    if (!items.length) break;
  }
  return pages;
}

function encodeCursor(offset: number): string {
  return Buffer.from(`o:${offset}`).toString('base64url');
}

function decodeCursor(cursor: unknown): number | undefined {
  if (typeof cursor !== 'string') return undefined;
  const m = /^o:(\d+)$/.exec(Buffer.from(cursor, 'base64url').toString());
  return m ? Number(m[1]) : undefined;
}
