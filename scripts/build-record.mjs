/**
 * The record a build keeps of its sources (dist/build.json, dist/gen.json): each source's size and
 * modification time when it was bundled, so that a start can tell, without reading them, whether
 * any changed since. Shared by the server's bundle (build.mjs), the generator's (gen-bundle.mjs)
 * and the CLI's (cli-bundle.mjs).
 */
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
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

/** True when the record at `recordFile` can be read, every output it lists is in `dist`, and no source it names changed. */
export function recordFresh(root, dist, recordFile) {
  let record;
  try {
    record = JSON.parse(readFileSync(recordFile, 'utf8'));
  } catch {
    return false;
  }
  if (!(record.outputs ?? []).every((f) => existsSync(path.join(dist, f)))) return false;
  return sourcesUnchanged(root, record);
}

/** Writes the record of a build: its outputs (relative to dist/) and each source's stamp now. */
export function writeRecord(root, recordFile, outputs, sources) {
  const record = { outputs: [...outputs].sort(), sources: Object.fromEntries([...sources].sort().map((f) => [f, stamp(root, f)])) };
  writeFileSync(recordFile, `${JSON.stringify(record, null, 2)}\n`);
}
