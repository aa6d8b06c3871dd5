/**
 * The HAProxy layout docs/operating.md shows for real hosts is the one `npm run cluster` runs:
 * its `global`, `defaults` and `backend` sections are what scripts/cluster/haproxy-config.ts
 * writes for those hosts (only the frontend differs: TLS ends there).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { haproxyConfig } from '../../scripts/cluster/haproxy-config.ts';

/** The sections of a configuration, by their first line. */
function sections(config: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const block of config.trim().split(/\n(?=\S)/)) out.set(block.split('\n', 1)[0]!, block.trim());
  return out;
}

test("docs/operating.md's haproxy.cfg for real hosts is the cluster's own, but for its frontend", () => {
  const doc = /```haproxy\n([\s\S]*?)```/.exec(readFileSync('docs/operating.md', 'utf8'))?.[1];
  assert.ok(doc, 'docs/operating.md shows a haproxy configuration');
  const servers = [...doc.matchAll(/^ {2}server (\S+) (\S+):(\d+)$/gm)].map((m) => ({ name: m[1]!, host: m[2]!, port: Number(m[3]) }));
  assert.equal(servers.length, 3);
  const generated = sections(haproxyConfig({ bind: { host: '0.0.0.0', port: 443 }, servers }));
  const shown = sections(doc);
  assert.deepEqual([...shown.keys()], [...generated.keys()]);
  for (const [name, text] of generated) if (!name.startsWith('frontend')) assert.equal(shown.get(name), text, name);
});
