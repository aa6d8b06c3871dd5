/**
 * The breaking-change gate as a maintainer meets it: `npm run gen` (and `--check`, which CI runs)
 * on a copy of the full golden fixture, whose committed tools.contract.json is the published
 * contract. One edit of each kind of break is refused, all named in one run, with nothing
 * written; additive edits pass; a version that allows breaks accepts them and records the new
 * contract. A tool added under the version still being prepared is not released yet and changes
 * freely until server.version moves on. The comparison itself, rule by rule, is tested in
 * tests/unit/codegen/contract.test.ts.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { REPO_ROOT } from '../helpers/project-copy.ts';

const run = promisify(execFile);
const FIXTURE = path.join(REPO_ROOT, 'tests/golden/fixtures/full');

/** One edit of the fixture's tools.yaml: the text to find (exactly once) and what replaces it. */
type Edit = [find: string | RegExp, replace: string];

/** Each kind of break, and the line gen prints for it. */
const BREAKS: { kind: string; edits: Edit[]; reported: RegExp }[] = [
  {
    kind: 'a moved app',
    edits: [['    uri: ui://golden-full/items-board\n', '    uri: ui://golden-full/board\n']],
    reported:
      /- app items_board: URI changed from ui:\/\/golden-full\/items-board to ui:\/\/golden-full\/board; hosts that kept the old one get resource-not-found/,
  },
  {
    kind: 'a removed tool',
    edits: [[/ {2}sync-tags\.v2:\n[^]*$/, '']],
    reported: /- tool sync-tags\.v2: tool removed; clients that call it get an unknown-tool error/,
  },
  {
    kind: 'a removed argument',
    edits: [['        due: { type: string, format: date }\n', '']],
    reported: /- tool create_item, argument due: argument removed; clients that still send it are rejected/,
  },
  {
    kind: 'a new required argument',
    edits: [
      [
        '      required: [item_id]\n      additionalProperties: false\n      properties:\n',
        '      required: [item_id, reason]\n      additionalProperties: false\n      properties:\n        reason: { type: string }\n',
      ],
      ['      - arguments: { item_id: itm_1 }', '      - arguments: { item_id: itm_1, reason: done }'],
    ],
    reported: /- tool delete_item, argument reason: .*required/,
  },
  {
    kind: 'a narrowed type',
    edits: [['limit: { type: integer, minimum: 1, maximum: 100, default: 20 }', 'limit: { type: integer, minimum: 1, maximum: 50, default: 20 }']],
    reported: /- tool list_items, argument limit: .*maximum/,
  },
  {
    kind: 'a narrowed enum',
    edits: [
      ['status: { enum: [open, done], description: Only items with this status. }', 'status: { enum: [open], description: Only items with this status. }'],
    ],
    reported: /- tool list_items, argument status: .*"done"/,
  },
  {
    kind: 'a removed result field',
    edits: [
      ['required: [id, title, status, tags]', 'required: [id, title, status]'],
      ['            tags: { type: array, items: { type: string } }\n', ''],
      ['{ id: itm_1, title: Buy milk, status: open, tags: [home] }', '{ id: itm_1, title: Buy milk, status: open }'],
    ],
    reported: /- tool list_items, result field items\[\]\.tags: result field removed/,
  },
  {
    kind: 'a scope added to a tool',
    edits: [
      [
        '    scopes: [items:write]\n    annotations:\n      destructiveHint: true',
        '    scopes: [items:write, items:read]\n    annotations:\n      destructiveHint: true',
      ],
    ],
    reported: /- tool delete_item, scopes: now requires scope items:read/,
  },
  {
    kind: 'a changed error message of the catalog',
    edits: [['reached; {name} and {company} stay literal', 'reached']],
    reported: /- error QUOTA_EXCEEDED: message/,
  },
];

describe('npm run gen against the published contract', { timeout: 120_000 }, () => {
  let work: string;
  let yamlPath: string;
  let original: string;

  before(() => {
    // Inside the repository (test-artifacts/ is ignored by git), so that the copy is formatted with
    // the project's prettier settings and finds its packages, as the fixture itself does.
    mkdirSync(path.join(REPO_ROOT, 'test-artifacts'), { recursive: true });
    work = mkdtempSync(path.join(REPO_ROOT, 'test-artifacts', 'gen-contract-'));
    cpSync(FIXTURE, work, { recursive: true });
    yamlPath = path.join(work, 'tools.yaml');
    original = readFileSync(yamlPath, 'utf8');
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  function edited(edits: Edit[], text = original): string {
    for (const [find, replace] of edits) {
      const count = typeof find === 'string' ? text.split(find).length - 1 : (text.match(new RegExp(find, 'g')) ?? []).length;
      assert.equal(count, 1, `the edit finds its text exactly once: ${String(find)}`);
      text = text.replace(find, replace);
    }
    return text;
  }

  /** Runs the generator CLI on the copy; resolves with its exit code and output either way. */
  async function gen(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    // The copy sits at another depth than the fixture, so its generated imports of runtime/ resolve
    // nowhere: the handlers' type check would fail on that, and is not what this tests.
    return run(process.execPath, [path.join(REPO_ROOT, 'scripts/gen.mjs'), ...args, '--no-typecheck', 'tools.yaml'], { cwd: work }).then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (err: { code: number; stdout: string; stderr: string }) => ({ code: err.code, stdout: err.stdout, stderr: err.stderr }),
    );
  }

  test('the unchanged fixture passes --check', async () => {
    const { code, stdout, stderr } = await gen('--check');
    assert.equal(code, 0, stderr);
    assert.match(stdout, /generated files are up to date/);
  });

  test('every kind of break is refused, each named, in one run; --check and gen alike; nothing is written', async () => {
    writeFileSync(yamlPath, edited(BREAKS.flatMap((b) => b.edits)));
    const contractBefore = readFileSync(path.join(work, 'expected/tools.contract.json'), 'utf8');
    for (const mode of [['--check'], []]) {
      const { code, stderr } = await gen(...mode);
      assert.equal(code, 1, `gen ${mode.join(' ')} fails`);
      assert.match(
        stderr,
        new RegExp(`^${BREAKS.length} breaking changes against the published contract expected/tools\\.contract\\.json \\(version 2\\.1\\.0\\):$`, 'm'),
      );
      for (const b of BREAKS) assert.match(stderr, b.reported, b.kind);
      assert.match(stderr, /set server\.version to 3\.0\.0 \(or later\)/);
    }
    assert.equal(readFileSync(path.join(work, 'expected/tools.contract.json'), 'utf8'), contractBefore, 'the snapshot is untouched');
  });

  for (const b of BREAKS)
    test(`alone, ${b.kind} is refused too`, async () => {
      writeFileSync(yamlPath, edited(b.edits));
      const { code, stderr } = await gen('--check');
      assert.equal(code, 1);
      assert.match(stderr, /^1 breaking change against/m);
      assert.match(stderr, b.reported);
    });

  test('additive changes pass and are recorded: a new tool, an optional argument, a result field, a wider enum', async () => {
    writeFileSync(
      yamlPath,
      edited([
        ['        due: { type: string, format: date }\n', '        due: { type: string, format: date }\n        notes: { type: string }\n'],
        [
          'status: { enum: [open, done], description: Only items with this status. }',
          'status: { enum: [open, done, archived], description: Only items with this status. }',
        ],
        ['        id: { type: string }\n    examples:', '        id: { type: string }\n        created_at: { type: string }\n    examples:'],
        [
          'tools:\n',
          'tools:\n  ping:\n    description: Answers.\n    scopes: []\n    input: { type: object, additionalProperties: false, properties: {} }\n\n',
        ],
      ]),
    );
    const { code, stdout, stderr } = await gen();
    assert.equal(code, 0, stderr);
    assert.match(stdout, /^wrote expected\/tools\.contract\.json$/m);
    const contract = JSON.parse(readFileSync(path.join(work, 'expected/tools.contract.json'), 'utf8')) as { tools: Record<string, unknown> };
    assert.ok(contract.tools.ping, 'the new tool is in the snapshot');
    assert.match(JSON.stringify(contract.tools.create_item), /"notes"/);
    assert.equal((await gen('--check')).code, 0);
  });

  test('with no snapshot yet nothing is released: the first run records every tool with its version', async () => {
    const snapshot = path.join(work, 'expected/tools.contract.json');
    rmSync(snapshot);
    writeFileSync(yamlPath, original);
    const { code, stderr } = await gen();
    assert.equal(code, 0, stderr);
    const tools = Object.values((JSON.parse(readFileSync(snapshot, 'utf8')) as { tools: Record<string, { since?: string }> }).tools);
    assert.ok(tools.length > 1);
    for (const t of tools) assert.equal(t.since, '2.1.0');
  });

  test('a tool added under the current version is unreleased: renamed, its argument renamed, without a version bump', async () => {
    const snapshot = path.join(work, 'expected/tools.contract.json');
    cpSync(path.join(FIXTURE, 'expected/tools.contract.json'), snapshot);
    const withPing = (tool: string, argument: string) =>
      edited([
        [
          'tools:\n',
          `tools:\n  ${tool}:\n    description: Answers.\n    scopes: []\n` +
            `    input: { type: object, additionalProperties: false, required: [${argument}], properties: { ${argument}: { type: string } } }\n\n`,
        ],
      ]);
    writeFileSync(yamlPath, withPing('ping', 'text'));
    const added = await gen();
    assert.equal(added.code, 0, added.stderr);
    const recorded = JSON.parse(readFileSync(snapshot, 'utf8')) as { tools: Record<string, { since?: string }> };
    assert.equal(recorded.tools.ping?.since, '2.1.0', 'the new tool is recorded with the version it first appeared under');
    assert.equal(recorded.tools.create_item?.since, undefined, 'a released tool keeps its entry as it was');

    // Its argument renamed (the old one removed, a new required one): no break, the snapshot follows.
    writeFileSync(yamlPath, withPing('ping', 'message'));
    const renamedArgument = await gen();
    assert.equal(renamedArgument.code, 0, renamedArgument.stderr);
    assert.doesNotMatch(renamedArgument.stdout, /breaking change/);
    assert.match(readFileSync(snapshot, 'utf8'), /"message"/);
    // The tool itself renamed: the new name is as unreleased as the old one was.
    writeFileSync(yamlPath, withPing('echo', 'message'));
    const renamedTool = await gen();
    assert.equal(renamedTool.code, 0, renamedTool.stderr);
    const now = JSON.parse(readFileSync(snapshot, 'utf8')) as { tools: Record<string, { since?: string }> };
    assert.equal(now.tools.ping, undefined);
    assert.equal(now.tools.echo?.since, '2.1.0');
    assert.equal((await gen('--check')).code, 0, 'the snapshot is the contract now');

    // A released tool's argument renamed, beside it, is still refused, and names only that tool.
    writeFileSync(
      yamlPath,
      edited([['        due: { type: string, format: date }\n', '        due_on: { type: string, format: date }\n']], withPing('echo', 'text')),
    );
    const released = await gen('--check');
    assert.equal(released.code, 1, 'a released tool stays under the gate');
    assert.match(released.stderr, /^1 breaking change against the published contract/m);
    assert.match(released.stderr, /- tool create_item, argument due: argument removed/);

    // Once server.version moves on, the tool is released: the same rename of its argument is refused.
    writeFileSync(yamlPath, withPing('echo', 'text').replace(/^( {2}version: )2\.1\.0$/m, '$12.1.1'));
    const movedOn = await gen('--check');
    assert.equal(movedOn.code, 1, 'after the version moves on, the tool is held to its contract');
    assert.match(movedOn.stderr, /- tool echo, argument message: argument removed/);
    assert.match(movedOn.stderr, /- tool echo, argument text: new required argument/);
  });

  test('a version that allows breaks accepts them, says so, and records the new contract', async () => {
    // Against the fixture's published contract again (the test above recorded additions).
    cpSync(path.join(FIXTURE, 'expected/tools.contract.json'), path.join(work, 'expected/tools.contract.json'));
    const breaking = edited(BREAKS.flatMap((b) => b.edits));
    writeFileSync(yamlPath, breaking.replace(/^( {2}version: )2\.1\.0$/m, '$13.0.0'));
    const { code, stdout, stderr } = await gen();
    assert.equal(code, 0, stderr);
    assert.match(stdout, new RegExp(`^server\\.version 3\\.0\\.0 publishes ${BREAKS.length} breaking change\\(s\\)`, 'm'));
    for (const b of BREAKS) assert.match(stdout, b.reported, b.kind);
    assert.equal((await gen('--check')).code, 0, 'the new snapshot is the contract now');
    // A minor bump is not enough for the next break.
    writeFileSync(
      yamlPath,
      edited(
        [['limit: { type: integer, minimum: 1, maximum: 50', 'limit: { type: integer, minimum: 5, maximum: 50']],
        readFileSync(yamlPath, 'utf8').replace('version: 3.0.0', 'version: 3.1.0'),
      ),
    );
    const minor = await gen('--check');
    assert.equal(minor.code, 1);
    assert.match(minor.stderr, /- tool list_items, argument limit: .*minimum/);
  });
});
