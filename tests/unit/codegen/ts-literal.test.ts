/**
 * generated/tools-list.gen.ts is written already formatted (codegen/emit/ts-literal.ts), not run
 * through prettier: its layout must be exactly what prettier makes of the same literal with this
 * project's settings, for every tools.yaml at hand and for any literal.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import * as prettier from 'prettier';
import { loadToolsYaml, parseToolsYaml } from '../../../codegen/load/load.ts';
import { emitToolsList } from '../../../codegen/emit/tools-list.ts';
import { printLiteral, type Literal } from '../../../codegen/emit/ts-literal.ts';
import { tools200Yaml } from '../../../bench/fixtures/tools-200.ts';

const ROOT = path.resolve(import.meta.dirname, '..', '..', '..');
const format = async (text: string) => prettier.format(text, { ...(await prettier.resolveConfig(path.join(ROOT, 'x.ts'))), parser: 'babel-ts' });

describe('the tools/list module is laid out as prettier lays it out', () => {
  const files = [
    'tools.yaml',
    'examples/conformance/tools.yaml',
    'tests/fixtures/protocol/tools.yaml',
    ...['edge', 'full', 'minimal'].map((f) => `tests/golden/fixtures/${f}/tools.yaml`),
  ];
  for (const file of files)
    test(file, async () => {
      const { content } = emitToolsList(loadToolsYaml(path.join(ROOT, file)));
      assert.equal(content, await format(content));
    });

  test('the 200-tool benchmark fixture', async () => {
    const yaml = tools200Yaml({ generated: 'generated', handlers: 'tools', docs: 'docs/reference.md' });
    const { content } = emitToolsList(parseToolsYaml(yaml, path.join(ROOT, 'bench-200', 'tools.yaml')));
    assert.equal(content, await format(content));
  });
});

/** The literal as the emitter used to write it for prettier: expanded objects over several lines, the rest compact. */
function source(l: Literal): string {
  switch (l.kind) {
    case 'value':
      return JSON.stringify(l.value);
    case 'code':
      return l.text;
    case 'array':
      return `[${l.items.map(source).join(',')}]`;
    case 'object': {
      const entries = l.entries.map((e) => ('spread' in e ? `...${e.spread}` : `${JSON.stringify(e.key)}: ${source(e.value)}`));
      return l.expanded && entries.length ? `{\n${entries.join(',\n')}\n}` : `{${entries.join(',')}}`;
    }
  }
}

const text = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.constantFrom("it's", 'say "hi"', `a'b'c"`, 'tab\there', 'line\nbreak', 'back\\slash', 'é—ü', '日本語のテキスト', '\u2028'),
  fc.string({ minLength: 60, maxLength: 200 }),
);
const key = fc.oneof(
  fc.constantFrom('type', 'description', 'id', 'const', 'x-mcp-header', '$ref', '1', 'a b', 'enum', 'properties'),
  fc.string({ maxLength: 8 }),
);
const literal: fc.Arbitrary<Literal> = fc.letrec<{ literal: Literal }>((tie) => ({
  literal: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc
      .oneof(text, fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null))
      .map((value): Literal => ({ kind: 'value', value })),
    fc.constantFrom('ProfileIdSchema', 'CampaignSchema').map((t): Literal => ({ kind: 'code', text: t })),
    fc.array(tie('literal'), { maxLength: 6 }).map((items): Literal => ({ kind: 'array', items })),
    fc
      .array(fc.integer({ min: -100000, max: 10000000 }), { minLength: 2, maxLength: 60 })
      .map((ns): Literal => ({ kind: 'array', items: ns.map((value) => ({ kind: 'value', value })) })),
    fc
      .tuple(fc.boolean(), fc.uniqueArray(fc.tuple(key, tie('literal')), { maxLength: 6, selector: ([k]) => k }), fc.option(fc.constantFrom('BaseSchema')))
      .map(([expanded, entries, spread]): Literal => ({
        kind: 'object',
        expanded,
        entries: [...(spread ? [{ spread }] : []), ...entries.map(([k, value]) => ({ key: k, value }))],
      })),
  ),
})).literal;

test('any literal prints as prettier prints it', async () => {
  await fc.assert(
    fc.asyncProperty(literal, async (l) => {
      const expected = await format(`const x = ${source(l)};\n`);
      assert.equal(`const x = ${printLiteral(l, '', 10, 1)};\n`, expected);
    }),
    { numRuns: 300 },
  );
});
