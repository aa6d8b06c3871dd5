/** What an SMTP failure means for the outbox: a 5xx is final with the server's words; a 4xx, a refused login or no connection is retried. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { smtpOutcome } from '../../../app/delivery/smtp-adapter.ts';

const smtpError = (fields: { code?: string; responseCode?: number; response?: string }, message = 'failed') => Object.assign(new Error(message), fields);

test('a 5xx fails the message for good, with what the server said', () => {
  const outcome = smtpOutcome(smtpError({ code: 'EENVELOPE', responseCode: 550, response: '550 5.1.1 <x@y.test>: Recipient address rejected ' }));
  assert.deepEqual(outcome, { ok: false, error: 'the mail server refused the message: 550 5.1.1 <x@y.test>: Recipient address rejected', retryable: false });
});

test('a 4xx is retried, with what the server said', () => {
  const outcome = smtpOutcome(smtpError({ code: 'EENVELOPE', responseCode: 451, response: '451 4.3.0 try again later' }));
  assert.deepEqual(outcome, { ok: false, error: 'the mail server deferred the message: 451 4.3.0 try again later', retryable: true });
});

test('a connection failure and a refused login are retried', () => {
  assert.equal(smtpOutcome(smtpError({ code: 'ESOCKET' }, 'connect ECONNREFUSED 127.0.0.1:1')).retryable, true);
  const login = smtpOutcome(smtpError({ code: 'EAUTH', responseCode: 535, response: '535 5.7.8 Error: authentication failed' }));
  assert.equal(login.retryable, true, 'the password may be fixed with profile update');
  assert.match(login.error, /refused the mailbox's user and password \(535/);
});
