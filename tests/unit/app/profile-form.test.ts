/** The profile page's form reader: every problem named beside its field, the TLS rule of mailbox-url.ts, default ports, and a blank password on an edit keeping the saved one. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readProfileForm } from '../../../app/web/profile-form.ts';

const FORM = {
  name: 'Nu (email)',
  from_name: 'Nu',
  from_address: 'nu@acme.test',
  smtp_host: 'smtp.acme.test',
  smtp_port: '',
  smtp_tls: 'tls',
  smtp_user: 'nu@acme.test',
  smtp_password: 'smtp-secret',
  imap_host: 'imap.acme.test',
  imap_port: '143',
  imap_tls: 'starttls',
  imap_user: 'nu@acme.test',
  imap_password: 'imap-secret',
  timezone: 'Europe/London',
  daily_limit: '20',
};

test('a complete form is an email profile; a blank port follows the TLS mode', () => {
  const read = readProfileForm(FORM, { mailbox: true });
  assert.ok(read.ok);
  assert.deepEqual(read.profile.mailbox?.smtp, { host: 'smtp.acme.test', port: 465, tls: 'tls', user: 'nu@acme.test', password: 'smtp-secret' });
  assert.equal(read.profile.mailbox?.imap.port, 143);
  assert.equal(read.profile.daily_limit, 20);
});

test('no TLS is refused for a server elsewhere and taken on this machine', () => {
  const elsewhere = readProfileForm({ ...FORM, smtp_tls: 'none' }, { mailbox: true });
  assert.ok(!elsewhere.ok);
  assert.match(elsewhere.errors.smtp_tls ?? '', /password would cross the network in clear to smtp\.acme\.test/);
  assert.ok(readProfileForm({ ...FORM, smtp_tls: 'none', smtp_host: '127.0.0.1', smtp_port: '25' }, { mailbox: true }).ok);
});

test('every problem is named by its field, and no value shown again holds a password', () => {
  const read = readProfileForm({ ...FORM, name: ' ', timezone: 'Mars/Olympus', daily_limit: '0', smtp_port: '99999', imap_password: '' }, { mailbox: true });
  assert.ok(!read.ok);
  assert.deepEqual(Object.keys(read.errors).sort(), ['daily_limit', 'imap_password', 'name', 'smtp_port', 'timezone']);
  assert.ok(!JSON.stringify(read.values).includes('smtp-secret'));
});

test('on an edit a blank password keeps the saved one', () => {
  const read = readProfileForm({ ...FORM, smtp_password: '', imap_password: 'new' }, { mailbox: true, saved: { smtp: 'saved-smtp', imap: 'saved-imap' } });
  assert.ok(read.ok);
  assert.equal(read.profile.mailbox?.smtp.password, 'saved-smtp');
  assert.equal(read.profile.mailbox?.imap.password, 'new');
});
