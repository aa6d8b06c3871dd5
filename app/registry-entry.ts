/**
 * This instance's entry for the MCP registry: server.json as `npm run gen` wrote it (its remote's
 * URL a `{host}` template, since the generator cannot know where an operator serves it), with the
 * MCP URL of this instance's PUBLIC_URL in its place, ready for `mcp-publisher publish`.
 */
import { readFileSync } from 'node:fs';

interface Remote {
  url: string;
  variables?: unknown;
}

export function registryEntry(publicUrl: string, file: URL = new URL('../server.json', import.meta.url)): string {
  const entry = JSON.parse(readFileSync(file, 'utf8')) as { remotes: Remote[] };
  entry.remotes = entry.remotes.map(({ variables: _filled, ...remote }) => ({ ...remote, url: `${publicUrl}/mcp` }));
  return JSON.stringify(entry, null, 2);
}
