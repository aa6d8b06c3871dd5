/**
 * server.json beside tools.yaml: the server's entry in the MCP registry (its 2025-12-11 format),
 * for a tools.yaml that names one under `server.registry`. The version is the server's, which is
 * also the contract snapshot's, so the two never differ.
 *
 * Every operator serves the server at a URL of their own, which the generator cannot know (and
 * reading PUBLIC_URL here would make the committed file depend on whoever ran gen): the remote's
 * URL is a template whose `{host}` the registry's clients ask the user for, and
 * `npm run cli -- server-json` prints the entry with this instance's PUBLIC_URL filled in.
 */
import path from 'node:path';
import type { Model } from '../load/model.ts';
import type { OutputFile } from './output.ts';

/** The registry's published schema this file follows (tests/fixtures/registry/server.schema.json). */
export const REGISTRY_SCHEMA = 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json';

/** The remote's URL as published: the operator's host (and path prefix, if any) goes in `{host}`. */
export const REMOTE_URL_TEMPLATE = 'https://{host}/mcp';

export function serverJsonPath(model: Model): string {
  return path.join(path.dirname(model.paths.source), 'server.json');
}

/** Nothing when tools.yaml names no registry entry. */
export function emitServerJson(model: Model): OutputFile[] {
  const { registry, title, version } = model.server;
  if (!registry) return [];
  const entry = {
    $schema: REGISTRY_SCHEMA,
    name: registry.name,
    ...(title !== undefined && { title }),
    description: registry.description,
    version,
    remotes: [
      {
        type: 'streamable-http',
        url: REMOTE_URL_TEMPLATE,
        variables: {
          host: {
            description: "The server's public host, with its path prefix if any: PUBLIC_URL without https://",
            isRequired: true,
            placeholder: 'mcp.example.com',
          },
        },
      },
    ],
  };
  return [{ path: serverJsonPath(model), content: `${JSON.stringify(entry, null, 2)}\n` }];
}
