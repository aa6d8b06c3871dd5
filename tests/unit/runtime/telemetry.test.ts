/**
 * runtime/telemetry.ts's bounds on what a client chose: the methods exported by name are exactly
 * those the protocol answers, and a string attribute is cut at a fixed length, never in the
 * middle of a surrogate pair. (The exported spans and metric are checked end to end in
 * tests/e2e/telemetry.test.ts.)
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { bounded, KNOWN_METHODS, MAX_ATTRIBUTE_LENGTH } from '../../../runtime/telemetry.ts';

test('the methods exported by name are the methods protocol.ts dispatches, no more and no fewer', () => {
  const source = readFileSync('runtime/protocol.ts', 'utf8');
  const body = source.slice(source.indexOf('private async dispatch('), source.indexOf("throw this.errors.create('METHOD_NOT_FOUND'"));
  const dispatched = new Set([...body.matchAll(/case '([^']+)':/g)].map((m) => m[1]!));
  assert.ok(dispatched.size > 10, `found the dispatch switch (${dispatched.size} cases)`);
  assert.deepEqual([...KNOWN_METHODS].sort(), [...dispatched].sort());
});

test('bounded: short values unchanged, long ones cut to the limit, a surrogate pair kept whole or dropped', () => {
  assert.equal(bounded('tools/call'), 'tools/call');
  assert.equal(bounded('a'.repeat(MAX_ATTRIBUTE_LENGTH)), 'a'.repeat(MAX_ATTRIBUTE_LENGTH));
  assert.equal(bounded('b'.repeat(10_000)), 'b'.repeat(MAX_ATTRIBUTE_LENGTH));
  // An emoji (two UTF-16 units) across the limit: no lone high surrogate is left at the end.
  const cut = bounded(`${'c'.repeat(MAX_ATTRIBUTE_LENGTH - 1)}😀tail`);
  assert.equal(cut, 'c'.repeat(MAX_ATTRIBUTE_LENGTH - 1));
  assert.doesNotMatch(cut, /[\uD800-\uDBFF]$/);
});
