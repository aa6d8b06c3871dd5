/**
 * runtime/classify.ts, the one function that says what a thrown error is: a catalog error, a
 * refused token, a question for the client, a question it cannot answer, a dependency's outage, or
 * a bug. And that it is the only place asking: no other runtime file tests an error's class or
 * calls the outage probe itself.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';
import { errorCatalog } from '../../fixtures/protocol/generated/errors.gen.ts';
import { TokenRefusedError } from '../../../runtime/auth.ts';
import { classify } from '../../../runtime/classify.ts';
import { ErrorFactory } from '../../../runtime/errors.ts';
import { InputRequestFailedError, InputRequired, InputUnavailableError } from '../../../runtime/input-requests.ts';

const errors = new ErrorFactory(errorCatalog);
const everythingIsDown = () => 'the database does not answer';

describe('classify', () => {
  test('a catalog error of every surface is a catalog error, itself', () => {
    for (const err of [
      errors.declared('NOTE_NOT_FOUND', { note_id: 'n' }),
      errors.create('METHOD_NOT_FOUND', { method: 'x' }),
      errors.create('AUTH_HEADER_MISSING'),
      errors.create('BODY_TOO_LARGE', { limit: 1 }),
    ]) {
      const failure = classify(err);
      assert.equal(failure.kind, 'catalog', err.code);
      assert.equal(failure.kind === 'catalog' && failure.error, err);
    }
  });

  test("a refused token is a refusal; a handler's question is input-required, carrying the question", () => {
    const refused = new TokenRefusedError('INVALID_TOKEN');
    assert.deepEqual(classify(refused), { kind: 'refused', error: refused });
    const question = new InputRequired('confirm', { method: 'elicitation/create', params: {} });
    assert.deepEqual(classify(question), { kind: 'input-required', question });
  });

  test('a question the client cannot answer is input-unavailable, naming the capability only when that is why', () => {
    const undeclared = new InputUnavailableError('no elicitation', 'elicitation');
    assert.deepEqual(classify(undeclared), { kind: 'input-unavailable', error: undeclared, capability: 'elicitation' });
    const cannot = new InputUnavailableError('the request cannot carry it');
    const failure = classify(cannot);
    assert.deepEqual(failure, { kind: 'input-unavailable', error: cannot });
    assert.ok(!('capability' in failure), 'no capability key at all when none is missing');
    const answeredWithError = new InputRequestFailedError('roots/list', { code: -32601, message: 'no roots' });
    assert.deepEqual(classify(answeredWithError), { kind: 'input-unavailable', error: answeredWithError });
  });

  test('an error the probe recognises is an outage with its detail; without a probe, or when it says nothing, a bug', () => {
    const cut = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    const probe = (err: unknown) => ((err as { code?: string }).code === 'ECONNREFUSED' ? 'the database does not answer' : undefined);
    assert.deepEqual(classify(cut, probe), { kind: 'outage', detail: 'the database does not answer' });
    assert.deepEqual(classify(cut), { kind: 'bug', error: cut });
    const typo = new TypeError('x is not a function');
    assert.deepEqual(classify(typo, probe), { kind: 'bug', error: typo });
  });

  test('what was raised on purpose is never taken for an outage, however eager the probe', () => {
    const declared = errors.create('INVALID_PARAMS', { detail: 'x' });
    assert.equal(classify(declared, everythingIsDown).kind, 'catalog');
    assert.equal(classify(new TokenRefusedError('INVALID_TOKEN'), everythingIsDown).kind, 'refused');
    assert.equal(classify(new InputRequired('k', { method: 'roots/list', params: {} }), everythingIsDown).kind, 'input-required');
    assert.equal(classify(new InputUnavailableError('no'), everythingIsDown).kind, 'input-unavailable');
    assert.equal(classify(new Error('disk'), everythingIsDown).kind, 'outage');
  });

  test('whatever else is thrown (a string, undefined, a plain object) is a bug, kept as thrown', () => {
    for (const thrown of ['oops', undefined, null, { code: 'SOMETHING' }, 42]) assert.deepEqual(classify(thrown), { kind: 'bug', error: thrown });
  });
});

describe('the one classifier', () => {
  const runtime = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../runtime');
  // The classes classify sorts by, and the outage probe: asked only there.
  const asking = /instanceof\s+(CatalogError|InputRequired|InputUnavailableError|InputRequestFailedError|TokenRefusedError)\b|describeOutage\??\.?\(/;

  test('no runtime file but classify.ts tests an error for the kinds classify sorts, or calls the outage probe', () => {
    const offenders: string[] = [];
    for (const file of readdirSync(runtime).filter((f) => f.endsWith('.ts') && f !== 'classify.ts')) {
      readFileSync(path.join(runtime, file), 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (asking.test(line)) offenders.push(`runtime/${file}:${i + 1}: ${line.trim()}`);
        });
    }
    assert.deepEqual(offenders, [], 'ask classify(err) instead');
  });

  test('the check sees a class test and a probe call', () => {
    assert.ok(asking.test('if (err instanceof CatalogError) return'));
    assert.ok(asking.test('const outage = describeOutage?.(err);'));
    assert.ok(asking.test('describeOutage(err)'));
    assert.ok(!asking.test('describeOutage: options.describeOutage,'));
  });
});
