/** codegen/emit/indent.ts: the re-indenter of generated TypeScript. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { reindent } from '../../codegen/emit/indent.ts';

test('indents by bracket depth, two spaces a level, closers dedenting their own line', () => {
  const input = ['export interface A {', 'b: {', 'c: string[]', '}', 'd: ("x" | "y")', '}', 'export const e = [', '{', '"f": 1', '},', ']'].join('\n');
  assert.equal(
    reindent(input),
    ['export interface A {', '  b: {', '    c: string[]', '  }', '  d: ("x" | "y")', '}', 'export const e = [', '  {', '    "f": 1', '  },', ']'].join('\n'),
  );
});

test('brackets inside strings and comments do not count; JSDoc keeps its alignment', () => {
  const input = ['export interface A {', '/**', '* Use {name} or [x', '*/', "a: '{'", 'b: "}\\"{"', '// }', 'c: `(`', '}', 'export type B = 1'].join('\n');
  assert.equal(
    reindent(input),
    ['export interface A {', '  /**', '   * Use {name} or [x', '   */', "  a: '{'", '  b: "}\\"{"', '  // }', '  c: `(`', '}', 'export type B = 1'].join('\n'),
  );
});

test('blank lines stay blank, with no trailing spaces', () => {
  assert.equal(reindent('a {\n\n  b\n}'), 'a {\n\n  b\n}');
});
