/**
 * The apps of a server (MCP Apps, SEP-1865): `ui://` resources whose content is fixed when the
 * server starts, so each resources/read result is serialized once here. No handler and no scope:
 * an app is the same static document for every caller (any data it shows comes from tools, which
 * check their scopes); the request itself was authenticated like any other.
 */
import { appContents, appListing } from '../core/apps.ts';
import type { AppDefinition, ResourceListing, ServerDefinition } from '../core/definition.ts';

export class AppResources {
  private readonly byUri = new Map<string, string>();
  /** The apps' resources/list entries, in the definition's order. */
  readonly listings: readonly ResourceListing[];

  constructor(definition: ServerDefinition) {
    const apps: AppDefinition[] = Object.values(definition.apps ?? {});
    for (const app of apps) this.byUri.set(app.uri, JSON.stringify(appContents(app)));
    this.listings = apps.map(appListing);
  }

  get size(): number {
    return this.byUri.size;
  }

  /** The serialized resources/read result of the app at `uri`, or undefined when no app has it. */
  read(uri: string): string | undefined {
    return this.byUri.get(uri);
  }
}
