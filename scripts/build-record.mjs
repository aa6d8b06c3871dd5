/**
 * The record a build keeps of its sources (dist/build.json, dist/gen.json): each source's size and
 * modification time when it was bundled, so that a start can tell, without reading them, whether
 * any changed since. Shared by the server's bundle (build.mjs) and the generator's (gen-bundle.mjs).
 */
import { statSync } from 'node:fs';
import path from 'node:path';

/** What a source (relative to `root`) looks like now. */
export function stamp(root, file) {
  const s = statSync(path.join(root, file));
  return { size: s.size, mtimeMs: s.mtimeMs };
}

/** True when every source the record names is as it was (a missing one is a change). */
export function sourcesUnchanged(root, record) {
  return Object.entries(record.sources ?? {}).every(([file, was]) => {
    try {
      const now = stamp(root, file);
      return now.size === was.size && now.mtimeMs === was.mtimeMs;
    } catch {
      return false;
    }
  });
}
