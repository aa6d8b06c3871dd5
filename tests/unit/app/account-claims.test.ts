/**
 * app/auth/account-claims.ts: the outreach service's reading of a token, the `service_account_id`
 * claim, through the runtime's authenticator; a token without a valid one gets the interface's
 * 401 "service_account_id claim missing or invalid" from the app's catalog, byte for byte.
 */
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { createLocalJWKSet, exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWTVerifyGetKey } from 'jose';
import { accountClaims, ACCOUNT_CLAIM_ERRORS, type AccountClaims } from '../../../app/auth/account-claims.ts';
import { errorCatalog } from '../../../generated/errors.gen.ts';
import { Challenges, createJwtAuthenticator, TokenRefusedError } from '../../../runtime/auth.ts';
import { refusalError } from '../../../runtime/error-mapping.ts';
import { ErrorFactory } from '../../../runtime/errors.ts';

const ISSUER = 'http://127.0.0.1:3000';
const AUDIENCE = `${ISSUER}/mcp`;
const METADATA = `${ISSUER}/.well-known/oauth-protected-resource/mcp`;

let privateKey: CryptoKey;
let keys: JWTVerifyGetKey;

before(async () => {
  const pair = await generateKeyPair('ES256');
  privateKey = pair.privateKey;
  keys = createLocalJWKSet({ keys: [{ ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'ES256' }] });
});

const sign = (claims: Record<string, unknown>) =>
  new SignJWT({ scope: 'mcp:read', grant_id: 'g1', ...claims })
    .setProtectedHeader({ alg: 'ES256', kid: 'k1', typ: 'at+jwt' })
    .setSubject('usr_1')
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(privateKey);

function authenticator() {
  let checks = 0;
  const auth = createJwtAuthenticator<AccountClaims>({
    issuer: ISSUER,
    audience: AUDIENCE,
    keys,
    claims: accountClaims,
    claimErrors: ACCOUNT_CLAIM_ERRORS,
    checkPrincipal: async () => void checks++,
  });
  return { auth, checks: () => checks };
}

test("the token's service_account_id becomes ctx.principal.accountId", async () => {
  const { auth } = authenticator();
  const principal = await auth.authenticate(`Bearer ${await sign({ service_account_id: 'acc_1' })}`);
  assert.equal(principal.accountId, 'acc_1');
  assert.equal(principal.subject, 'usr_1');
});

test("a missing or malformed service_account_id is ACCOUNT_CLAIM_INVALID, the interface's 401, before the service check", async () => {
  const { auth, checks } = authenticator();
  const errors = new ErrorFactory(errorCatalog);
  errors.require(auth.errorCodes);
  const challenges = new Challenges(METADATA, ['mcp:read']);
  for (const service_account_id of [undefined, '', 42, 'has space', 'x'.repeat(129)]) {
    const refused = await auth.authenticate(`Bearer ${await sign({ service_account_id })}`).then(
      () => assert.fail(`accepted ${String(service_account_id)}`),
      (err: unknown) => err,
    );
    assert.ok(refused instanceof TokenRefusedError);
    assert.equal(refused.code, 'ACCOUNT_CLAIM_INVALID');
    const err = refusalError(refused, errors, challenges);
    assert.equal(err.message, 'service_account_id claim missing or invalid');
    assert.equal(err.definition.status, 401);
    assert.equal(
      err.headers['www-authenticate'],
      `Bearer error="invalid_token", error_description="service_account_id claim missing or invalid", scope="mcp:read", resource_metadata="${METADATA}"`,
    );
  }
  assert.equal(checks(), 0, 'the service check is not asked about a token without an account');
});
