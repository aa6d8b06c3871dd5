/** Unsubscribe links: a token reads back as its account and address; any change to it is refused. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readUnsubscribeToken, unsubscribeHeaders, unsubscribeToken } from '../../../app/unsubscribe/links.ts';

const SECRET = 'test-secret';

test('a token reads back as the account and the lower-cased address', () => {
  const token = unsubscribeToken(SECRET, { accountId: 'acc_1', email: ' Ada@Example.COM ' });
  assert.deepEqual(readUnsubscribeToken(SECRET, token), { accountId: 'acc_1', email: 'ada@example.com' });
});

test('a token under another secret, for another account or address, or cut, is refused', () => {
  const token = unsubscribeToken(SECRET, { accountId: 'acc_1', email: 'ada@example.com' });
  const [account, address, mac] = token.split('.') as [string, string, string];
  assert.equal(readUnsubscribeToken('other', token), undefined);
  assert.equal(readUnsubscribeToken(SECRET, `acc_2.${address}.${mac}`), undefined);
  assert.equal(readUnsubscribeToken(SECRET, `${account}.${Buffer.from('bob@example.com').toString('base64url')}.${mac}`), undefined);
  assert.equal(readUnsubscribeToken(SECRET, `${account}.${address}`), undefined);
  assert.equal(readUnsubscribeToken(SECRET, `${token}x`), undefined);
  assert.equal(readUnsubscribeToken(SECRET, 'a.b.c/d'), undefined);
});

test('the headers name the one-click URL and a mailto, as RFC 8058 asks', () => {
  const headers = unsubscribeHeaders('https://out.example.com/', SECRET, { accountId: 'acc_1', email: 'ada@example.com' }, 'nu@example.test');
  const token = unsubscribeToken(SECRET, { accountId: 'acc_1', email: 'ada@example.com' });
  assert.equal(headers['List-Unsubscribe'], `<https://out.example.com/u/${token}>, <mailto:nu@example.test?subject=unsubscribe%20${token}>`);
  assert.equal(headers['List-Unsubscribe-Post'], 'List-Unsubscribe=One-Click');
});
