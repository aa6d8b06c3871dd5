/**
 * MCP Apps in tools.yaml (codegen/load/apps-load.ts, app-html.ts): the model of a valid file (the
 * document built, its scripts bundled inline, `_meta.ui` in the wire's names, each tool's link
 * resolved), and every mistake reported at its line with what to write instead.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parseToolsYaml } from '../../../codegen/load/load.ts';
import { ToolsYamlError } from '../../../codegen/load/problems.ts';
import { originProblem } from '../../../codegen/load/apps-load.ts';
import { toolListing } from '../../../codegen/emit/tools-list.ts';

const DOC = '<!doctype html>\n<html><body><p id="out"></p><script type="module" src="./view.ts"></script></body></html>\n';

let dir: string;
let file: string;

before(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'apps-load-'));
  file = path.join(dir, 'tools.yaml');
  mkdirSync(path.join(dir, 'ui'));
  writeFileSync(path.join(dir, 'ui', 'board.html'), DOC);
  writeFileSync(path.join(dir, 'ui', 'greeting.ts'), 'export const greeting = (name: string): string => `Hello, ${name}`;\n');
  writeFileSync(path.join(dir, 'ui', 'view.ts'), "import { greeting } from './greeting.ts';\nconsole.log(greeting('</script> <!-- x'));\n");
  writeFileSync(path.join(dir, 'ui', 'plain.html'), '<!DOCTYPE html><html><body>Hi</body></html>');
  writeFileSync(path.join(dir, 'ui', 'fragment.html'), '<div>no document</div>');
  writeFileSync(path.join(dir, 'ui', 'broken.html'), '<!doctype html><script type="module" src="./broken.ts"></script>');
  writeFileSync(path.join(dir, 'ui', 'broken.ts'), "import { nothing } from './missing.ts';\nconsole.log(nothing);\n");
  writeFileSync(path.join(dir, 'ui', 'remote.html'), '<!doctype html><script src="https://cdn.example.com/lib.js"></script>');
  writeFileSync(path.join(dir, 'ui', 'rooted.html'), '<!doctype html><script src="/view.js"></script>');
});
after(() => rmSync(dir, { recursive: true, force: true }));

const HEAD = `server: { name: mini, version: 1.0.0 }
scopes:
  read: { description: Read things }
`;
const tool = (name: string, ui: string) => `  ${name}:
    description: A tool.
    scopes: [read]
    ui: ${ui}
    input: { type: object, properties: {} }
`;

function load(text: string) {
  return parseToolsYaml(HEAD + text, file);
}

function problems(text: string): string[] {
  try {
    load(text);
  } catch (err) {
    assert.ok(err instanceof ToolsYamlError, String(err));
    return err.problems.map((p) => `${p.line}: ${p.message}`);
  }
  assert.fail('expected problems');
}

describe('apps in tools.yaml', () => {
  test('a valid app: its document built (scripts bundled inline, made safe for HTML), _meta.ui in the wire names, tools linked', () => {
    const model = load(`ui:
  board:
    uri: ui://mini/board
    title: Board
    description: The board.
    html: ui/board.html
    csp:
      connect_domains: [https://api.example.com, wss://live.example.com]
      resource_domains: ['https://*.cdn.example.com']
    permissions: [clipboard_write, camera]
    domain: abc.example-host.com
    prefers_border: false
tools:
${tool('show', '{ app: board }')}${tool('refresh', '{ app: board, visibility: [app] }')}${tool('helper', '{ visibility: [model] }')}`);
    assert.equal(model.apps.length, 1);
    const app = model.apps[0]!;
    assert.equal(app.uri, 'ui://mini/board');
    assert.deepEqual(app.ui, {
      csp: { connectDomains: ['https://api.example.com', 'wss://live.example.com'], resourceDomains: ['https://*.cdn.example.com'] },
      permissions: { clipboardWrite: {}, camera: {} },
      domain: 'abc.example-host.com',
      prefersBorder: false,
    });
    assert.doesNotMatch(app.html, /src=/, 'the relative script is inlined');
    assert.match(app.html, /^<!doctype html>\n<html><body><p id="out"><\/p><script type="module">.*Hello, .*<\/script><\/body><\/html>\n$/s);
    assert.ok(app.html.includes('<\\/script> <\\!-- x'), 'a </script> or <!-- inside the code cannot end the element early');
    assert.equal(app.html.match(/<\/script>/g)?.length, 1);
    assert.deepEqual(app.inputs.map((f) => path.relative(dir, f)).sort(), ['ui/board.html', 'ui/greeting.ts', 'ui/view.ts']);
    const byName = Object.fromEntries(model.tools.map((t) => [t.name, toolListing(t)._meta]));
    assert.deepEqual(byName, {
      helper: { ui: { visibility: ['model'] } },
      refresh: { ui: { resourceUri: 'ui://mini/board', visibility: ['app'] }, 'ui/resourceUri': 'ui://mini/board' },
      show: { ui: { resourceUri: 'ui://mini/board' }, 'ui/resourceUri': 'ui://mini/board' },
    });
  });

  test('an app no tool opens is a warning; an app without scripts is served as written', () => {
    const model = load(`ui:
  plain: { uri: 'ui://mini/plain', description: Plain., html: ui/plain.html }
tools: {}
`);
    assert.equal(model.apps[0]!.html, '<!DOCTYPE html><html><body>Hi</body></html>');
    assert.deepEqual(model.apps[0]!.ui, {});
    assert.match(model.warnings.map((w) => w.message).join('\n'), /app plain is opened by no tool/);
  });

  test('every mistake at its line: scheme, file, document, scripts, CSP origins, links, visibility, unknown keys', () => {
    const found = problems(`resources:
  taken: { uri: 'ui://mini/taken', description: A resource., scopes: [] }
ui:
  wrong_scheme: { uri: 'https://mini/app', description: D., html: ui/plain.html }
  missing: { uri: 'ui://mini/missing', description: D., html: ui/none.html }
  fragment: { uri: 'ui://mini/fragment', description: D., html: ui/fragment.html }
  broken: { uri: 'ui://mini/broken', description: D., html: ui/broken.html }
  remote: { uri: 'ui://mini/remote', description: D., html: ui/remote.html }
  rooted: { uri: 'ui://mini/rooted', description: D., html: ui/rooted.html }
  clash: { uri: 'ui://mini/taken', description: D., html: ui/plain.html }
  origins:
    uri: ui://mini/origins
    description: D.
    html: ui/plain.html
    csp:
      connect_domains: [https://api.example.com/v1, 'http://api.example.com', api.example.com, 'HTTPS://API.example.com']
      frame_domains: ['ftp://files.example.com', 'http://127.0.0.1:8080']
    prefer_border: true
tools:
${tool('unknown_app', '{ app: bord }')}${tool('by_uri', "{ app: 'ui://mini/remote' }")}${tool('bad_visibility', '{ app: remote, visibility: [user] }')}${tool('empty_visibility', '{ visibility: [] }')}${tool('nothing', '{}')}`);
    const expected = [
      /^7: uri of app wrong_scheme must use the ui:\/\/ scheme/,
      /^8: html of app missing: ui\/none.html does not exist; create it, or correct the path \(relative to tools.yaml\)$/,
      /^9: html of app fragment: ui\/fragment.html is not a whole HTML document: it must begin with <!DOCTYPE html>/,
      /^10: html of app broken: ui\/broken.ts:1:25: Could not resolve "\.\/missing\.ts"$/,
      /^11: html of app remote loads the script https:\/\/cdn.example.com\/lib.js, which hosts block unless csp.resource_domains names https:\/\/cdn.example.com/,
      /^12: html of app rooted: ui\/rooted.html loads the script \/view.js: a ui:\/\/ document has no server path/,
      /^13: app clash has the same URI as resource taken/,
      /^19: csp.connect_domains of app origins: https:\/\/api.example.com\/v1 is not an origin: write scheme:\/\/host\[:port\] with no path/,
      /^19: csp.connect_domains of app origins: http:\/\/api.example.com uses http, which hosts' https pages block: use https:\/\/api.example.com/,
      /^19: csp.connect_domains of app origins: api.example.com is not an origin/,
      /^19: csp.connect_domains of app origins: HTTPS:\/\/API.example.com is not an origin/,
      /^20: csp.frame_domains of app origins: ftp:\/\/files.example.com has the scheme ftp/,
      /^21: unknown key prefer_border in ui.origins \(did you mean prefers_border\?\)$/,
      /^26: tool unknown_app opens app bord, which is not declared under ui:( \(did you mean \w+\?\))?$/,
      /^31: tool by_uri names app remote by its URI; write its name: app: remote$/,
      /^36: tools.bad_visibility.ui.visibility.0 must be one of model, app$/,
      /^41: tools.empty_visibility.ui.visibility must NOT have fewer than 1 items$/,
      /^46: tools.nothing.ui must NOT have fewer than 1 properties$/,
    ];
    for (const pattern of expected)
      assert.ok(
        found.some((p) => pattern.test(p)),
        `${pattern} among:\n${found.join('\n')}`,
      );
    assert.ok(!found.some((p) => p.includes('127.0.0.1')), 'http on loopback is an origin');
  });
});

describe('originProblem', () => {
  test('origins hosts accept: https and wss, a wildcard subdomain, a port; http and ws on loopback', () => {
    for (const ok of ['https://api.example.com', 'wss://live.example.com:8443', 'https://*.example.com', 'http://localhost:3000', 'ws://127.0.0.1:9000'])
      assert.equal(originProblem(ok), undefined, ok);
    for (const bad of ['https://api.example.com/', 'https://api.example.com:443', 'http://example.com', 'example.com', 'https://*', 'data:', "https://'self'"])
      assert.ok(originProblem(bad), bad);
  });
});
