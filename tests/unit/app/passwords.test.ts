/** Password hashes carry their parameters; weaker (older) ones are re-hashed after a good sign-in. */
import assert from 'node:assert/strict';
import { randomBytes, scryptSync } from 'node:crypto';
import { test } from 'node:test';
import { DEFAULT_PASSWORD_LOG_N, hashPassword, lowerPasswordCostForTests, needsRehash, verifyPassword } from '../../../app/store/passwords.ts';

test('a hash names its scrypt parameters and verifies only its password', async () => {
  lowerPasswordCostForTests(12);
  const hash = await hashPassword('correct horse');
  assert.match(hash, /^scrypt\$12\$8\$1\$[\w-]+\$[\w-]+$/);
  assert.equal(await verifyPassword('correct horse', hash), true);
  assert.equal(await verifyPassword('wrong', hash), false);
  assert.equal(needsRehash(hash), false);
  for (const junk of ['', 'scrypt$', 'scrypt$99$8$1$a$b', 'bcrypt$x$y']) assert.equal(await verifyPassword('x', junk), false, junk);
});

test('an earlier hash (N = 2^14, no parameters) still verifies, and asks to be re-hashed', async () => {
  lowerPasswordCostForTests(15);
  const salt = randomBytes(16);
  const legacy = `scrypt$${salt.toString('base64url')}$${scryptSync('old password', salt, 32).toString('base64url')}`;
  assert.equal(await verifyPassword('old password', legacy), true);
  assert.equal(needsRehash(legacy), true, 'N = 2^14 is weaker than 2^15');
  lowerPasswordCostForTests(14);
  assert.equal(needsRehash(legacy), false, 'not weaker than 2^14');
});

test('a server hashes at OWASP parameters, N = 2^17, whatever its environment says', async () => {
  assert.equal(DEFAULT_PASSWORD_LOG_N, 17);
  // A fresh process that loads the module as the server does, with the old test variable set.
  const { execFileSync } = await import('node:child_process');
  const script = `import { hashPassword } from './app/store/passwords.ts'; console.log(await hashPassword('x'));`;
  const printed = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    env: { ...process.env, PASSWORD_SCRYPT_LOG_N: '10' },
    encoding: 'utf8',
  });
  assert.match(printed, /^scrypt\$17\$8\$1\$/);
});

test('the lowered cost is for tests: out of range is refused', () => {
  for (const bad of [9, 18, 12.5]) assert.throws(() => lowerPasswordCostForTests(bad), RangeError);
});
