/**
 * codegen/load/problems.ts: a bad tools.yaml is reported as `file: N problems`, then one
 * `file:line:col: message` per problem, and, given the file's text, its line and a caret under the column.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { formatProblems, ToolsYamlError } from '../../../codegen/load/problems.ts';

const SOURCE = ['server: { name: s, version: "1" }', 'tools:', '  add_leads:', '    scope: [mcp:write]', '\tbad: tab'].join('\n');

describe('ToolsYamlError', () => {
  test('without the source, each problem is one file:line:col line, sorted by position', () => {
    const err = new ToolsYamlError('tools.yaml', [
      { line: 4, col: 5, message: 'second' },
      { line: 1, col: 9, message: 'first' },
    ]);
    assert.equal(err.name, 'ToolsYamlError');
    assert.equal(err.message, ['tools.yaml: 2 problems', '  tools.yaml:1:9: first', '  tools.yaml:4:5: second'].join('\n'));
  });

  test('with the source, each problem shows its line under a line-number gutter and a caret under the column', () => {
    const err = new ToolsYamlError('tools.yaml', [{ line: 4, col: 5, message: 'unknown key scope in tools.add_leads (did you mean scopes?)' }], SOURCE);
    assert.equal(
      err.message,
      [
        'tools.yaml: 1 problem',
        '  tools.yaml:4:5: unknown key scope in tools.add_leads (did you mean scopes?)',
        '    4 |     scope: [mcp:write]',
        '      |     ^',
      ].join('\n'),
    );
    assert.equal(err.source, SOURCE);
  });

  test('a problem on line 1, column 1', () => {
    const lines = formatProblems('f.yaml', [{ line: 1, col: 1, message: 'm' }], SOURCE).split('\n');
    assert.deepEqual(lines.slice(2), ['    1 | server: { name: s, version: "1" }', '      | ^']);
  });

  test('tabs before the column are kept in the caret line, so that the caret stays under the column', () => {
    const lines = formatProblems('f.yaml', [{ line: 5, col: 2, message: 'm' }], SOURCE).split('\n');
    assert.deepEqual(lines.slice(2), ['    5 | \tbad: tab', '      | \t^']);
  });

  test('a wide line number widens the gutter of every problem alike', () => {
    const source = Array.from({ length: 1200 }, (_, i) => `line${i + 1}: x`).join('\n');
    const lines = formatProblems(
      'f.yaml',
      [
        { line: 1042, col: 8, message: 'far' },
        { line: 7, col: 1, message: 'near' },
      ],
      source,
    ).split('\n');
    assert.deepEqual(lines, [
      'f.yaml: 2 problems',
      '  f.yaml:7:1: near',
      '       7 | line7: x',
      '         | ^',
      '  f.yaml:1042:8: far',
      '    1042 | line1042: x',
      '         |        ^',
    ]);
  });

  test('a column beyond the end of the line points just after its last character', () => {
    const lines = formatProblems('f.yaml', [{ line: 2, col: 40, message: 'm' }], SOURCE).split('\n');
    assert.deepEqual(lines.slice(2), ['    2 | tools:', '      |       ^']);
  });

  test('an empty last line (end of file) shows an empty line with the caret at its start', () => {
    const lines = formatProblems('f.yaml', [{ line: 3, col: 1, message: 'end' }], 'a: 1\nb: 2\n').split('\n');
    assert.deepEqual(lines.slice(2), ['    3 |', '      | ^']);
  });

  test('CRLF line ends are not shown', () => {
    const lines = formatProblems('f.yaml', [{ line: 1, col: 3, message: 'm' }], 'a: 1\r\nb: 2\r\n').split('\n');
    assert.deepEqual(lines.slice(2), ['    1 | a: 1', '      |   ^']);
  });

  test('a line the source does not have is reported without a snippet', () => {
    const message = formatProblems('f.yaml', [{ line: 9, col: 1, message: 'm' }], 'a: 1');
    assert.equal(message, 'f.yaml: 1 problem\n  f.yaml:9:1: m');
  });
});
