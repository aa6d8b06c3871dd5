/**
 * Renames of handlers (codegen/edit/): the rewrite of one file's text with ts-morph (what changes,
 * what is kept byte for byte), and the rule that pairs a gone item with a new one, for resources
 * and prompts too, in a scratch copy of the full golden fixture. The tool rename end to end, with
 * the real `npm run gen` and server, is tests/e2e/gen-handler-edits.test.ts.
 */
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { renamedSource } from '../../../codegen/edit/rename-handler.ts';
import { planRenames, UndecidedRenameError, type Rename } from '../../../codegen/edit/renames.ts';
import { generate, render, sync } from '../../../codegen/generate.ts';
import { loadToolsYaml } from '../../../codegen/load/load.ts';
import { nextBreakingVersion } from '../../../codegen/contract/versions.ts';

const TOOL_RENAME: Rename = {
  kind: 'tool',
  oldName: 'list_items',
  newName: 'find_items',
  from: '/p/app/tools/list_items.ts',
  to: '/p/app/tools/find_items.ts',
  oldTypesFile: '/p/generated/tools/list_items.gen.ts',
  newTypesFile: '/p/generated/tools/find_items.gen.ts',
  types: {
    ListItemsHandler: 'FindItemsHandler',
    ListItemsArguments: 'FindItemsArguments',
    ListItemsResult: 'FindItemsResult',
    ListItemsErrorCode: 'FindItemsErrorCode',
  },
};

describe("a handler's text, renamed", () => {
  test('the import path and the imported type names change, with every use; comments, strings, quotes and spacing stay', async () => {
    const before = `import type {ListItemsHandler, ListItemsResult} from "../../generated/tools/list_items.gen.ts";
import { helper } from './helper.ts';

// ListItemsHandler, as I wrote it.
export const handler: ListItemsHandler = async (args,   ctx) => {
  const result: ListItemsResult = { items: helper('list_items: ListItemsResult') };
  return result;
};
type Mine = Parameters<ListItemsHandler>[0];
`;
    const after = `import type {FindItemsHandler, FindItemsResult} from "../../generated/tools/find_items.gen.ts";
import { helper } from './helper.ts';

// ListItemsHandler, as I wrote it.
export const handler: FindItemsHandler = async (args,   ctx) => {
  const result: FindItemsResult = { items: helper('list_items: ListItemsResult') };
  return result;
};
type Mine = Parameters<FindItemsHandler>[0];
`;
    assert.equal(await renamedSource(before, TOOL_RENAME), after);
  });

  test('an aliased import changes only the imported name; a path without extension or with .js keeps its spelling', async () => {
    assert.equal(
      await renamedSource(
        `import type { ListItemsHandler as H } from '../../generated/tools/list_items.gen.js';\nexport const handler: H = async () => ({ items: [] });\n`,
        TOOL_RENAME,
      ),
      `import type { FindItemsHandler as H } from '../../generated/tools/find_items.gen.js';\nexport const handler: H = async () => ({ items: [] });\n`,
    );
    assert.equal(
      await renamedSource(`import type { ListItemsHandler } from '../../generated/tools/list_items.gen';\n`, TOOL_RENAME),
      `import type { FindItemsHandler } from '../../generated/tools/find_items.gen';\n`,
    );
  });

  test("imports of other modules, and names that are not the old item's types, are left alone", async () => {
    const text = `import type { ListItemsHandler } from './somewhere-else.ts';\nimport type { Item } from '../../generated/tools/list_items.gen.ts';\nconst x: ListItemsHandler = null!;\n`;
    assert.equal(await renamedSource(text, TOOL_RENAME), text.replace('list_items.gen.ts', 'find_items.gen.ts'));
  });
});

describe('which handlers follow a rename, in a scratch copy of the full fixture', () => {
  let work: string;
  let yamlFile: string;
  const original = readFileSync(path.join(import.meta.dirname, '../../golden/fixtures/full/tools.yaml'), 'utf8');
  const file = (rel: string) => path.join(work, 'expected', rel);

  before(async () => {
    work = mkdtempSync(path.join(tmpdir(), 'handler-renames-'));
    yamlFile = path.join(work, 'tools.yaml');
    cpSync(path.join(import.meta.dirname, '../../golden/fixtures/full/tools.yaml'), yamlFile);
    // The files its app is built from (tools.yaml's ui:).
    cpSync(path.join(import.meta.dirname, '../../golden/fixtures/full/ui'), path.join(work, 'ui'), { recursive: true });
    const model = loadToolsYaml(yamlFile);
    // Every file as `npm run gen` writes it, the contract (the record of this run) among them.
    sync(model, await render(model), false);
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  /** The fixture with these replacements, under a server.version that accepts the breaks they make. */
  function declare(...edits: [string, string][]): void {
    let yaml = original.replace(/^( {2}version: )(\S+)$/m, (_l, head: string, v: string) => `${head}${nextBreakingVersion(v)}`);
    for (const [from, to] of edits) {
      assert.ok(yaml.includes(from), from);
      yaml = yaml.replace(from, to);
    }
    writeFileSync(yamlFile, yaml);
  }

  test('everything declared has its handler: nothing to plan (and the contract is not read)', () => {
    writeFileSync(yamlFile, original);
    assert.deepEqual(planRenames(loadToolsYaml(yamlFile)), []);
  });

  test('a renamed prompt and a renamed resource: each handler moves, its types renamed, its import path kept', async () => {
    const prompt = readFileSync(file('prompts/tidy_items.ts'), 'utf8');
    const resource = readFileSync(file('resources/item.ts'), 'utf8');
    declare(['\n  tidy_items:\n', '\n  tidy_up:\n'], ['\n  item:\n', '\n  thing:\n']);
    const result = await generate(yamlFile, false);
    assert.deepEqual(
      result.renamed.map((r) => [r.kind, r.oldName, r.newName]),
      [
        ['resource', 'item', 'thing'],
        ['prompt', 'tidy_items', 'tidy_up'],
      ],
    );
    assert.ok(!existsSync(file('prompts/tidy_items.ts')) && !existsSync(file('resources/item.ts')));
    assert.equal(readFileSync(file('prompts/tidy_up.ts'), 'utf8'), prompt.replaceAll('TidyItemsPromptHandler', 'TidyUpPromptHandler'));
    assert.equal(readFileSync(file('resources/thing.ts'), 'utf8'), resource.replaceAll('ItemResourceHandler', 'ThingResourceHandler'));
    assert.deepEqual(
      result.changed.filter((p) => p.endsWith('tidy_up.ts') || p.endsWith('thing.ts')),
      [],
      'no stub was written',
    );
  });

  test('two tools renamed at once: undecided, refused, nothing written', async () => {
    const contract = readFileSync(file('tools.contract.json'), 'utf8');
    const handler = readFileSync(file('handlers/delete_item.ts'), 'utf8');
    // Under the next version again: the last run published 3.0.0, so removing its tools is a break it accepts.
    const yaml = readFileSync(yamlFile, 'utf8').replace(/^( {2}version: )(\S+)$/m, (_l, head: string, v: string) => `${head}${nextBreakingVersion(v)}`);
    writeFileSync(yamlFile, yaml.replace('\n  delete_item:\n', '\n  remove_item:\n').replace('\n  create_item:\n', '\n  make_item:\n'));
    await assert.rejects(generate(yamlFile, false), (err: Error) => {
      assert.ok(err instanceof UndecidedRenameError);
      assert.match(
        err.message,
        /cannot tell which tool became which: tools make_item, remove_item are new and without a handler, and .*handlers\/create_item\.ts, .*handlers\/delete_item\.ts handled tools create_item, delete_item/,
      );
      return true;
    });
    assert.equal(readFileSync(file('tools.contract.json'), 'utf8'), contract);
    assert.equal(readFileSync(file('handlers/delete_item.ts'), 'utf8'), handler);
    assert.ok(!existsSync(file('handlers/remove_item.ts')) && !existsSync(file('handlers/make_item.ts')));
  });

  test('a handler that does not name its old type is not taken for it: the new tool gets a stub', async () => {
    writeFileSync(file('handlers/create_item.ts'), 'export const handler = async () => ({});\n');
    const yaml = readFileSync(yamlFile, 'utf8').replace('\n  remove_item:\n', '\n  delete_item:\n');
    writeFileSync(yamlFile, yaml);
    const result = await generate(yamlFile, false);
    assert.deepEqual(result.renamed, []);
    assert.ok(result.changed.includes(file('handlers/make_item.ts')), 'a stub for the new tool');
    assert.ok(existsSync(file('handlers/create_item.ts')), 'the orphan stays');
  });
});
