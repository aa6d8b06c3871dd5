/**
 * runtime/input-requests.ts: the sealed 2026-07-28 state, the numbering of questions, and waiting
 * calls of the handshake era; and runtime/era.ts's check of x-mcp-header arguments' headers.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  InputRequestFailedError,
  InputRequired,
  InputUnavailableError,
  PendingInputs,
  RequestStateSeal,
  roundAsker,
  type InputAnswer,
  type InputRelay,
} from '../../../runtime/input-requests.ts';
import { ErrorFactory } from '../../../runtime/errors.ts';
import { frameworkErrors, type FrameworkError, type Principal } from '../../../runtime/index.ts';
import { checkParamHeaders } from '../../../runtime/era.ts';

const principal = (subject: string): Principal<{ tenantId: string }> => ({ subject, tenantId: 'ten', scopes: new Set(), expiresAt: 0 });

describe('RequestStateSeal', () => {
  const bound = { who: 'u|acc', tool: 't', args: 'digest' };

  test('opens what it sealed, until it expires; another secret cannot open it', () => {
    let now = 1_000;
    const seal = new RequestStateSeal('secret', 60_000, () => now);
    const state = seal.seal({ ...bound, answers: { 'input-1': { action: 'accept' } }, pending: ['input-2'] });
    assert.deepEqual(seal.open(state, bound), { answers: { 'input-1': { action: 'accept' } }, pending: ['input-2'] });
    assert.equal(new RequestStateSeal('other', 60_000, () => now).open(state, bound), undefined);
    assert.equal(seal.open(state, { ...bound, args: 'other' }), undefined);
    now += 60_001;
    assert.equal(seal.open(state, bound), undefined, 'expired');
  });

  test("two instances with the same secret open each other's state", () => {
    const state = new RequestStateSeal('shared').seal({ ...bound, answers: {}, pending: ['input-1'] });
    assert.ok(new RequestStateSeal('shared').open(state, bound));
  });
});

describe('roundAsker', () => {
  test('numbers questions in the order asked, answers from the state, stops at the first unanswered', async () => {
    const ask = roundAsker({ 'input-1': { action: 'accept' } }, { elicitation: {} });
    assert.deepEqual(await ask('elicitation/create', { message: 'a' }), { action: 'accept' });
    await assert.rejects(ask('elicitation/create', { message: 'b' }), (err) => err instanceof InputRequired && err.key === 'input-2');
  });

  test('asks a URL elicitation only of a client that declares url mode (an empty elicitation means forms only), a form only of one that takes forms', async () => {
    const question = { mode: 'url', message: 'Approve it', url: 'https://x.test/approve/1', elicitationId: '1' };
    for (const declared of [{ elicitation: {} }, { elicitation: { form: {} } }])
      await assert.rejects(roundAsker({}, declared)('elicitation/create', question), InputUnavailableError, JSON.stringify(declared));
    await assert.rejects(roundAsker({}, { elicitation: { url: {} } })('elicitation/create', question), InputRequired);
    assert.deepEqual(await roundAsker({ 'input-1': { action: 'accept' } }, { elicitation: { url: {} } })('elicitation/create', question), { action: 'accept' });
    // And the other way: a client that names url mode alone takes no form.
    const form = { message: 'Sure?', requestedSchema: { type: 'object', properties: {} } };
    await assert.rejects(roundAsker({}, { elicitation: { url: {} } })('elicitation/create', form), InputUnavailableError);
    await assert.rejects(roundAsker({}, { elicitation: { form: {}, url: {} } })('elicitation/create', form), InputRequired);
  });

  test('refuses a method whose capability the client did not declare', async () => {
    await assert.rejects(roundAsker({}, { elicitation: {} })('sampling/createMessage', {}), InputUnavailableError);
  });
});

describe('PendingInputs', () => {
  test('hands the answer to the waiting call, and only from the same caller', async () => {
    const pending = new PendingInputs();
    let sent: any;
    const waiting = pending.ask(principal('alice'), 'elicitation/create', { message: 'm' }, (message) => ((sent = JSON.parse(message)), true));
    assert.equal(sent.method, 'elicitation/create');
    assert.equal(await pending.deliver({ jsonrpc: '2.0', id: sent.id, result: { action: 'decline' } }, principal('mallory')), false);
    assert.equal(await pending.deliver({ jsonrpc: '2.0', id: sent.id, result: { action: 'accept' } }, principal('alice')), true);
    assert.deepEqual(await waiting, { action: 'accept' });
    assert.equal(await pending.deliver({ jsonrpc: '2.0', id: sent.id, result: {} }, principal('alice')), false, 'answered once');
  });

  /** What the app keeps in its database, in memory: the waits of every instance sharing it. */
  function sharedRelay(): InputRelay & { waits: Map<string, unknown> } {
    const waits = new Map<string, { caller: string; deliver: (answer: InputAnswer) => void }>();
    return {
      waits,
      async wait(id, caller, deliver) {
        waits.set(id, { caller, deliver });
        return () => void waits.delete(id);
      },
      async relay(id, caller, answer) {
        const wait = waits.get(id);
        if (!wait || wait.caller !== caller) return false;
        wait.deliver(answer);
        return true;
      },
    };
  }

  test('with a relay: an answer reaching another instance is handed to the waiting call, only from the same caller', async () => {
    const relay = sharedRelay();
    const [asking, other] = [new PendingInputs(60_000, relay), new PendingInputs(60_000, relay)];
    const questions: any[] = [];
    const waiting = asking.ask(principal('alice'), 'elicitation/create', { message: 'm' }, (message) => (questions.push(JSON.parse(message)), true));
    assert.equal(questions.length, 0, 'the question goes out only once the wait is known to every instance');
    await new Promise((resolve) => setImmediate(resolve));
    const sent = questions[0];
    assert.equal(relay.waits.size, 1);
    assert.equal(await other.deliver({ jsonrpc: '2.0', id: sent.id, result: { action: 'decline' } }, principal('mallory')), false);
    assert.equal(await other.deliver({ jsonrpc: '2.0', id: 'srv-not-ours', result: {} }, principal('alice')), false);
    assert.equal(await other.deliver({ jsonrpc: '2.0', id: sent.id, error: { code: -1, message: 'no' } }, principal('alice')), true);
    await assert.rejects(waiting, (err) => err instanceof InputRequestFailedError && err.error.message === 'no');
    assert.equal(relay.waits.size, 0, 'the wait ends with the call');
  });

  test('with a relay: an answer reaching the asking instance is taken there, and the wait ends', async () => {
    const relay = sharedRelay();
    const asking = new PendingInputs(60_000, relay);
    let sent: any;
    const waiting = asking.ask(principal('alice'), 'elicitation/create', { message: 'm' }, (message) => ((sent = JSON.parse(message)), true));
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(await asking.deliver({ jsonrpc: '2.0', id: sent.id, result: { action: 'accept' } }, principal('alice')), true);
    assert.deepEqual(await waiting, { action: 'accept' });
    assert.equal(relay.waits.size, 0);
  });

  test('gives up after its timeout, and at once without an event stream', async () => {
    // The wait does not hold the process open (its timer is unref'd): this test does, meanwhile.
    const alive = setTimeout(() => undefined, 1_000);
    await assert.rejects(
      new PendingInputs(20).ask(principal('a'), 'roots/list', {}, () => true),
      /did not answer roots\/list/,
    );
    clearTimeout(alive);
    await assert.rejects(
      new PendingInputs().ask(principal('a'), 'roots/list', {}, () => false),
      /needs the response as an event stream/,
    );
  });
});

describe('Mcp-Param headers (SEP-2243)', () => {
  const errors = new ErrorFactory(
    Object.fromEntries(Object.entries<FrameworkError>(frameworkErrors).map(([k, v]) => [k, { ...v, params: Object.keys(v.params ?? {}) }])),
  );
  const params = [
    { header: 'Region', path: ['region'] },
    { header: 'Count', path: ['target', 'count'] },
  ];
  const check = (args: unknown, headers: Record<string, string>) => checkParamHeaders(params, args, headers, errors);

  test('match the body: strings as they are or base64, numbers as JSON text; absent with their argument', () => {
    check({ region: 'eu', target: { count: 3 } }, { 'mcp-param-region': 'eu', 'mcp-param-count': '3' });
    check({ region: 'Zürich' }, { 'mcp-param-region': `=?base64?${Buffer.from('Zürich').toString('base64')}?=` });
    check({}, {});
  });

  test('missing, extra or different: 400 naming the header and the argument', () => {
    const refused = (args: unknown, headers: Record<string, string>, message: RegExp) =>
      assert.throws(
        () => check(args, headers),
        (err: any) => err.code === 'HEADER_MISMATCH' && err.definition.status === 400 && message.test(err.message),
      );
    refused({ region: 'eu' }, {}, /the Mcp-Param-Region header is required: it carries argument region/);
    refused({}, { 'mcp-param-region': 'eu' }, /the Mcp-Param-Region header is sent, but argument region is not/);
    refused(
      { region: 'eu', target: { count: 3 } },
      { 'mcp-param-region': 'eu', 'mcp-param-count': '4' },
      /Mcp-Param-Count header value '4' does not match argument target.count '3'/,
    );
  });
});
