/**
 * What package.json promises. One version, stated once: tools.yaml's `server.version`; package.json
 * states none (a private package needs none), so nothing can show another, and the server's
 * `serverInfo`, the reference page (/docs) and the registry entry (server.json) show tools.yaml's.
 * Every installed package with an install script is allowed or denied in `allowScripts` (npm 11
 * warns at each `npm ci` about one that is neither, and npm 12 will not run its script).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { parse } from 'yaml';
import { referenceDocs } from '../../generated/docs.gen.ts';
import { serverDefinition } from '../../generated/server.gen.ts';
import { REPO_ROOT } from '../helpers/project-copy.ts';

const read = (file: string) => readFileSync(path.join(REPO_ROOT, file), 'utf8');
const { version } = (parse(read('tools.yaml')) as { server: { version: string } }).server;

test("package.json and its lockfile state no version: tools.yaml's server.version is the only one", () => {
  assert.match(version, /^\d+\.\d+\.\d+$/);
  const pkg = JSON.parse(read('package.json')) as Record<string, unknown>;
  assert.equal(pkg.version, undefined, "package.json states a version beside tools.yaml's server.version; remove it");
  const lock = JSON.parse(read('package-lock.json')) as { version?: string; packages: Record<string, { version?: string }> };
  assert.equal(lock.version, undefined, 'package-lock.json still has a version (npm install rewrites it)');
  assert.equal(lock.packages['']!.version, undefined);
});

test("the server, its reference page and its registry entry show tools.yaml's version", () => {
  assert.equal(serverDefinition.info.version, version);
  assert.ok(referenceDocs.title.endsWith(`${serverDefinition.info.name} ${version})`), referenceDocs.title);
  assert.equal((JSON.parse(read('server.json')) as { version: string }).version, version);
});

test('every package the lockfile installs with an install script is allowed or denied by name in allowScripts', () => {
  const pkg = JSON.parse(read('package.json')) as { allowScripts?: Record<string, boolean> };
  const lock = JSON.parse(read('package-lock.json')) as { packages: Record<string, { hasInstallScript?: boolean }> };
  const withScripts = Object.entries(lock.packages)
    .filter(([where, entry]) => where && entry.hasInstallScript)
    .map(([where]) => where.slice(where.lastIndexOf('node_modules/') + 'node_modules/'.length));
  assert.ok(withScripts.length > 0, 'the lockfile marks packages with install scripts (hasInstallScript)');
  const undecided = withScripts.filter((name) => typeof pkg.allowScripts?.[name] !== 'boolean');
  assert.deepEqual(undecided, [], "decide each in package.json's allowScripts (npm install-scripts approve|deny <name>) and say why in docs/decisions.md");
});
