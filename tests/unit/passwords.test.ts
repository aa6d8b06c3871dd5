/** Password hashes carry their parameters; weaker (older) ones are re-hashed after a good sign-in. */
import assert from 'node:assert/strict';
import { randomBytes, scryptSync } from 'node:crypto';
import { test } from 'node:test';
import { hashPassword, needsRehash, verifyPassword } from '../../app/store/passwords.ts';

test('a hash names its scrypt parameters and verifies only its password', async () => {
  const hash = await hashPassword('correct horse');
  assert.match(hash, /^scrypt\$\d+\$8\$1\$[\w-]+\$[\w-]+$/);
  assert.equal(await verifyPassword('correct horse', hash), true);
  assert.equal(await verifyPassword('wrong', hash), false);
  assert.equal(needsRehash(hash), false);
  for (const junk of ['', 'scrypt$', 'scrypt$99$8$1$a$b', 'bcrypt$x$y']) assert.equal(await verifyPassword('x', junk), false, junk);
});

test('an earlier hash (N = 2^14, no parameters) still verifies, and asks to be re-hashed', async () => {
  const salt = randomBytes(16);
  const legacy = `scrypt$${salt.toString('base64url')}$${scryptSync('old password', salt, 32).toString('base64url')}`;
  assert.equal(await verifyPassword('old password', legacy), true);
  assert.equal(needsRehash(legacy), Number(process.env.PASSWORD_SCRYPT_LOG_N || 17) > 14);
});

test('OWASP parameters by default: N = 2^17', async () => {
  const saved = process.env.PASSWORD_SCRYPT_LOG_N;
  delete process.env.PASSWORD_SCRYPT_LOG_N;
  try {
    assert.match(await hashPassword('x'), /^scrypt\$17\$8\$1\$/);
  } finally {
    if (saved !== undefined) process.env.PASSWORD_SCRYPT_LOG_N = saved;
  }
});
