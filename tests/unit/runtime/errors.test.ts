/**
 * runtime/errors.ts: message templates, and the error factory of a server's catalog (the protocol
 * fixture's, tests/fixtures/protocol). The outreach service's own catalog, its messages byte for
 * byte and its docs: tests/unit/app/error-catalog.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { errorCatalog } from '../../fixtures/protocol/generated/errors.gen.ts';
import { CatalogError, ErrorFactory, FrameworkConfigError, toolErrorConstructors } from '../../../runtime/errors.ts';
import { renderTemplate } from '../../../core/templates.ts';

describe('renderTemplate', () => {
  test('fills {{param}} slots and leaves single-brace text literal', () => {
    const template = "Step {{step}} ('{{step_name}}') references variables like {name} or {company} but has no fallback_text";
    assert.equal(
      renderTemplate(template, { step: 2, step_name: 'Intro' }),
      "Step 2 ('Intro') references variables like {name} or {company} but has no fallback_text",
    );
  });

  test('accepts spaces inside the braces and repeats a parameter as often as it appears', () => {
    assert.equal(renderTemplate('{{ a }}-{{a}}-{{b}}', { a: 'x', b: 0 }), 'x-x-0');
  });

  test('inserts values verbatim: no escaping, no second expansion, no $-patterns', () => {
    assert.equal(renderTemplate('[{{v}}]', { v: '{{w}} $& $1 "q" \\' }), '[{{w}} $& $1 "q" \\]');
  });

  test('a parameter without a value stays visible rather than rendering "undefined"', () => {
    assert.equal(renderTemplate('Unknown tool: {{tool}}', {}), 'Unknown tool: {{tool}}');
  });
});

describe('ErrorFactory', () => {
  const factory = new ErrorFactory(errorCatalog);

  test('create builds a CatalogError carrying its code, definition, params and headers', () => {
    const err = factory.create('INSUFFICIENT_SCOPE', { scopes: 'mcp:write' }, { 'www-authenticate': 'Bearer' });
    assert.ok(err instanceof CatalogError);
    assert.ok(err instanceof Error);
    assert.equal(err.code, 'INSUFFICIENT_SCOPE');
    assert.equal(err.message, 'Missing required scope(s): mcp:write');
    assert.equal(err.definition, errorCatalog.INSUFFICIENT_SCOPE);
    assert.deepEqual(err.params, { scopes: 'mcp:write' });
    assert.deepEqual(err.headers, { 'www-authenticate': 'Bearer' });
  });

  test('an undeclared code is a configuration fault, not a request error', () => {
    assert.throws(
      () => factory.declared('NO_SUCH_CODE'),
      (e: unknown) => e instanceof FrameworkConfigError && /NO_SUCH_CODE/.test(e.message),
    );
  });

  // These lines are compiled by `npm run typecheck`: each @ts-expect-error fails it if the line
  // below it ever compiles, i.e. if create() stopped checking framework codes and their params.
  test('create takes only framework codes, each with its own params (checked by tsc)', () => {
    assert.throws(
      // @ts-expect-error a typo of BODY_TOO_LARGE is no framework code
      () => factory.create('BODY_TOO_LARG', { limit: 1 }),
      FrameworkConfigError,
    );
    // @ts-expect-error an app's code is raised through its tool's ctx.errors (or declared()), not create()
    assert.equal(factory.create('NOTE_TITLE_TAKEN', { title: 'x' }).code, 'NOTE_TITLE_TAKEN');
    // @ts-expect-error BODY_TOO_LARGE needs its limit
    assert.equal(factory.create('BODY_TOO_LARGE').code, 'BODY_TOO_LARGE');
    // @ts-expect-error the limit is a number
    assert.equal(factory.create('BODY_TOO_LARGE', { limit: '1' }).message, 'Request body is larger than 1 bytes');
    // @ts-expect-error METHOD_NOT_FOUND has no param `tool`
    assert.ok(factory.create('METHOD_NOT_FOUND', { method: 'x', tool: 'y' }));
    assert.equal(factory.create('BODY_TOO_LARGE', { limit: 10 }).message, 'Request body is larger than 10 bytes');
    assert.equal(factory.create('METHOD_NOT_ALLOWED').message, 'Method not allowed');
  });

  test('require passes when every code is present and names every missing code otherwise', () => {
    factory.require(['AUTH_HEADER_MISSING', 'INVALID_TOKEN', 'NOTE_TITLE_TAKEN']);
    assert.throws(
      () => factory.require(['INVALID_TOKEN', 'MISSING_ONE', 'MISSING_TWO']),
      (e: unknown) => e instanceof FrameworkConfigError && e.name === 'FrameworkConfigError' && /MISSING_ONE, MISSING_TWO$/.test(e.message),
    );
  });

  test("toolErrorConstructors exposes exactly the tool's declared codes, frozen", () => {
    const ctors = toolErrorConstructors(factory, ['NOTE_TITLE_TAKEN', 'NOTE_NOT_FOUND']);
    assert.deepEqual(Object.keys(ctors).sort(), ['NOTE_NOT_FOUND', 'NOTE_TITLE_TAKEN']);
    assert.ok(Object.isFrozen(ctors));
    const err = ctors.NOTE_NOT_FOUND!({ note_id: 'note_x' });
    assert.equal(err.code, 'NOTE_NOT_FOUND');
    assert.equal(err.message, 'Note note_x was not found; call list_notes and use one of its ids');
  });
});
