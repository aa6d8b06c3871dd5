/**
 * runtime/auth.ts: Bearer JWT -> Principal with an ES256 key pair made here, verified claims
 * cached per token, the server's claims function, and a refusal for every failure, answered
 * (error-mapping.ts, as mcpHttp does) with its catalog error and WWW-Authenticate.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { createLocalJWKSet, exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import { errorCatalog } from '../../fixtures/protocol/generated/errors.gen.ts';
import { Challenges, createJwtAuthenticator, TokenRefusedError, TokenRejectedError, type JwtAuthOptions } from '../../../runtime/auth.ts';
import type { ErrorCatalog } from '../../../core/definition.ts';
import { refusalError } from '../../../runtime/error-mapping.ts';
import { CatalogError, ErrorFactory } from '../../../runtime/errors.ts';
import type { Principal } from '../../../runtime/handler.ts';

const ISSUER = 'http://127.0.0.1:3000';
const AUDIENCE = 'http://127.0.0.1:3000/mcp';
const METADATA = 'http://127.0.0.1:3000/.well-known/oauth-protected-resource/mcp';
const errors = new ErrorFactory(errorCatalog);
const challenges = new Challenges(METADATA);

let privateKey: CryptoKey;
let jwks: JWTVerifyGetKey;

before(async () => {
  const pair = await generateKeyPair('ES256');
  privateKey = pair.privateKey;
  jwks = createLocalJWKSet({ keys: [{ ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'ES256' }] });
});

interface TokenOptions {
  claims?: JWTPayload;
  audience?: string;
  issuer?: string;
  expiresIn?: number | string;
  key?: CryptoKey;
  typ?: string;
}

async function sign({
  claims = {},
  audience = AUDIENCE,
  issuer = ISSUER,
  expiresIn = '1h',
  key = privateKey,
  typ = 'at+jwt',
}: TokenOptions = {}): Promise<string> {
  return new SignJWT({ scope: 'mcp:read mcp:write', grant_id: 'g1', ...claims })
    .setProtectedHeader({ alg: 'ES256', kid: 'k1', typ })
    .setSubject('usr_1')
    .setIssuer(issuer)
    .setAudience(audience)
    .setIssuedAt()
    .setJti(crypto.randomUUID())
    .setExpirationTime(expiresIn)
    .sign(key);
}

/** An authenticator whose key lookups (one per signature verification) are counted. */
function counted(options: Partial<JwtAuthOptions> = {}) {
  const calls = { keys: 0, checks: 0 };
  const keys: JWTVerifyGetKey = (header, token) => {
    calls.keys++;
    return jwks(header, token);
  };
  const checkPrincipal = options.checkPrincipal;
  const auth = createJwtAuthenticator({
    issuer: ISSUER,
    audience: AUDIENCE,
    keys,
    ...options,
    checkPrincipal: async (principal: Principal, claims: JWTPayload) => {
      calls.checks++;
      await checkPrincipal?.(principal, claims);
    },
  });
  return { auth, calls };
}

/** Awaits a refusal with `code` and returns the catalog error mcpHttp answers it with (its 401 and challenge). */
async function rejectsWith(promise: Promise<unknown>, code: string, catalog: ErrorFactory = errors): Promise<CatalogError> {
  let caught: unknown;
  try {
    await promise;
  } catch (err) {
    caught = err;
  }
  assert.ok(caught instanceof TokenRefusedError, `expected a refusal with ${code}, got ${String(caught)}`);
  assert.equal(caught.code, code, caught.message);
  return refusalError(caught, catalog, challenges);
}

describe('createJwtAuthenticator', () => {
  test('a valid token gives the principal: subject, scopes as a set, grant, expiry, and no claim of its own', async () => {
    const { auth } = counted();
    const token = await sign({ claims: { client_id: 'cli_9', tenant: 'ten_1' } });
    const p = await auth.authenticate(`Bearer ${token}`);
    assert.deepEqual(Object.keys(p).sort(), ['clientId', 'expiresAt', 'grantId', 'scopes', 'subject'], 'claims unknown to the runtime are not copied');
    assert.equal(p.subject, 'usr_1');
    assert.ok(p.scopes instanceof Set);
    assert.deepEqual([...p.scopes].sort(), ['mcp:read', 'mcp:write']);
    assert.equal(p.grantId, 'g1');
    assert.equal(p.clientId, 'cli_9');
    assert.ok(Math.abs(p.expiresAt - (Math.floor(Date.now() / 1000) + 3600)) <= 5);
  });

  test('the scheme name is case-insensitive (RFC 7235): bearer and BEARER work', async () => {
    const { auth } = counted();
    const token = await sign();
    assert.equal((await auth.authenticate(`bearer ${token}`)).subject, 'usr_1');
    assert.equal((await auth.authenticate(`BEARER ${token}`)).subject, 'usr_1');
  });

  test('only access tokens: a JWT of another type (an ID token, say) signed with the same key is INVALID_TOKEN', async () => {
    const { auth } = counted();
    await rejectsWith(auth.authenticate(`Bearer ${await sign({ typ: 'JWT' })}`), 'INVALID_TOKEN');
  });

  test('a grant revoked while its first request was being verified is not cached as valid', async () => {
    let revokeDuringCheck: (() => void) | undefined;
    const { auth } = counted({
      checkPrincipal: async () => {
        revokeDuringCheck?.();
      },
    });
    const header = `Bearer ${await sign({ claims: { grant_id: 'grant_r' } })}`;
    revokeDuringCheck = () => auth.invalidateGrant('grant_r'); // the grant read as valid, then revoked
    await rejectsWith(auth.authenticate(header), 'TOKEN_REJECTED');
    revokeDuringCheck = undefined;
    await rejectsWith(auth.authenticate(header), 'TOKEN_REJECTED');
  });

  test('a token is verified once and then served from the cache', async () => {
    const { auth, calls } = counted();
    const token = await sign();
    const first = await auth.authenticate(`Bearer ${token}`);
    assert.deepEqual(calls, { keys: 1, checks: 1 });
    const second = await auth.authenticate(`Bearer ${token}`);
    assert.equal(second, first);
    assert.deepEqual(calls, { keys: 1, checks: 1 }, 'no second verification or service check');
    await auth.authenticate(`Bearer ${await sign()}`);
    assert.equal(calls.keys, 2, 'another token is verified on its own');
  });

  test('a cached token stops working once it expires', async () => {
    let now = Date.now();
    const { auth, calls } = counted({ now: () => now });
    const token = await sign({ expiresIn: '60s' });
    await auth.authenticate(`Bearer ${token}`);
    now += 61_000;
    await rejectsWith(auth.authenticate(`Bearer ${token}`), 'INVALID_TOKEN');
    assert.equal(calls.keys, 2, 'the expired entry is verified again, and fails');
  });

  test('an expired token is INVALID_TOKEN with a WWW-Authenticate challenge', async () => {
    const { auth } = counted();
    const token = await sign({ expiresIn: Math.floor(Date.now() / 1000) - 10 });
    const err = await rejectsWith(auth.authenticate(`Bearer ${token}`), 'INVALID_TOKEN');
    assert.equal(err.message, 'Invalid MCP token');
    assert.equal(err.definition.status, 401);
    assert.equal(err.headers['www-authenticate'], `Bearer error="invalid_token", error_description="Invalid MCP token", resource_metadata="${METADATA}"`);
  });

  test('a token of ours for another server is TOKEN_REJECTED naming what it is for and what this server is', async () => {
    const { auth } = counted();
    const forOther = await rejectsWith(auth.authenticate(`Bearer ${await sign({ audience: 'http://127.0.0.1:3000/other' })}`), 'TOKEN_REJECTED');
    assert.equal(
      forOther.message,
      `Invalid service access token: it was issued for http://127.0.0.1:3000/other, and this server is ${AUDIENCE}; get a token from this server's MCP dialog (or its CLI, with the same PUBLIC_URL)`,
    );
    const fromOther = await rejectsWith(auth.authenticate(`Bearer ${await sign({ issuer: 'https://evil.example' })}`), 'TOKEN_REJECTED');
    assert.match(fromOther.message, new RegExp(`it was issued for https://evil.example, and this server is ${ISSUER}`));
  });

  test('a foreign key, a tampered or malformed token are INVALID_TOKEN', async () => {
    const { auth } = counted();
    const other = await generateKeyPair('ES256');
    const valid = await sign();
    const [h, , s] = valid.split('.');
    const tampered = `${h}.${Buffer.from(JSON.stringify({ sub: 'usr_2', service_account_id: 'acc_2', exp: 9999999999, aud: AUDIENCE, iss: ISSUER })).toString('base64url')}.${s}`;
    const cases: [string, string][] = [
      ['foreign key', `Bearer ${await sign({ key: other.privateKey })}`],
      ['tampered payload', `Bearer ${tampered}`],
      ['truncated', `Bearer ${valid.slice(0, -10)}`],
      ['not a JWT', 'Bearer abc.def'],
      ['no Bearer prefix', valid],
      ['other scheme', `Basic ${Buffer.from('a:b').toString('base64')}`],
      ['token split by a space', `Bearer ${valid.slice(0, 20)} ${valid.slice(20)}`],
    ];
    for (const [why, header] of cases) {
      const err = await rejectsWith(auth.authenticate(header), 'INVALID_TOKEN');
      assert.ok(err.headers['www-authenticate']?.startsWith('Bearer error="invalid_token"'), why);
    }
  });

  test('no header is AUTH_HEADER_MISSING with a plain challenge naming the resource metadata', async () => {
    const { auth } = counted();
    for (const header of [undefined, '']) {
      const err = await rejectsWith(auth.authenticate(header), 'AUTH_HEADER_MISSING');
      assert.equal(err.message, 'Authorization header is required in MCP server config');
      assert.equal(err.headers['www-authenticate'], `Bearer resource_metadata="${METADATA}"`);
    }
  });

  describe("the server's claims function", () => {
    /** A server of workspaces: a catalog with its own claim error, and a claims function that reads `ws`. */
    const WORKSPACE_CLAIM_INVALID = {
      message: 'ws claim missing; sign in to a workspace',
      surface: 'auth',
      status: 401,
      rpcCode: -32001,
      params: [],
    } as const;
    const workspaceErrors = new ErrorFactory({ ...(errorCatalog as ErrorCatalog), WORKSPACE_CLAIM_INVALID });
    const workspace = (options: Partial<JwtAuthOptions<{ workspaceId: string }>> = {}) => {
      const checked: Principal<{ workspaceId: string }>[] = [];
      const auth = createJwtAuthenticator<{ workspaceId: string }>({
        issuer: ISSUER,
        audience: AUDIENCE,
        keys: jwks,
        claims: (claims) => {
          if (typeof claims.ws !== 'string') throw new TokenRefusedError('WORKSPACE_CLAIM_INVALID');
          return { workspaceId: claims.ws };
        },
        claimErrors: ['WORKSPACE_CLAIM_INVALID'],
        checkPrincipal: async (principal) => void checked.push(principal),
        ...options,
      });
      return { auth, checked };
    };

    test('its fields join the principal, typed, and the service check sees them', async () => {
      const { auth, checked } = workspace();
      const p = await auth.authenticate(`Bearer ${await sign({ claims: { ws: 'ws_7' } })}`);
      const workspaceId: string = p.workspaceId;
      assert.equal(workspaceId, 'ws_7');
      assert.equal(p.subject, 'usr_1');
      assert.deepEqual([...p.scopes].sort(), ['mcp:read', 'mcp:write']);
      assert.equal(checked[0]?.workspaceId, 'ws_7');
    });

    test("the runtime names the codes it refuses with, its own and the server's, for the start-time check", () => {
      assert.deepEqual(workspace().auth.errorCodes, ['AUTH_HEADER_MISSING', 'INVALID_TOKEN', 'TOKEN_REJECTED', 'WORKSPACE_CLAIM_INVALID']);
      assert.deepEqual(counted().auth.errorCodes, ['AUTH_HEADER_MISSING', 'INVALID_TOKEN', 'TOKEN_REJECTED']);
    });

    test("its refusal is the server's catalog error, a 401 with the invalid_token challenge; the service check is not asked", async () => {
      const { auth, checked } = workspace();
      const err = await rejectsWith(auth.authenticate(`Bearer ${await sign()}`), 'WORKSPACE_CLAIM_INVALID', workspaceErrors);
      assert.equal(err.message, 'ws claim missing; sign in to a workspace');
      assert.equal(err.definition.status, 401);
      assert.equal(
        err.headers['www-authenticate'],
        `Bearer error="invalid_token", error_description="ws claim missing; sign in to a workspace", resource_metadata="${METADATA}"`,
      );
      assert.equal(checked.length, 0);
    });

    test('its fields cannot overwrite the verified ones (a claims function that returns a subject)', async () => {
      const { auth } = workspace({ claims: (c) => ({ workspaceId: String(c.ws), subject: 'usr_forged' }) as { workspaceId: string } });
      const p = await auth.authenticate(`Bearer ${await sign({ claims: { ws: 'ws_1' } })}`);
      assert.equal(p.subject, 'usr_1');
    });

    test('anything else it throws is not turned into a token error', async () => {
      const { auth } = workspace({
        claims: () => {
          throw new Error('bug in the claims function');
        },
      });
      await assert.rejects(auth.authenticate(`Bearer ${await sign({ claims: { ws: 'ws_1' } })}`), /bug in the claims function/);
    });
  });

  test("a token without scope has no scopes; a token the service refuses is TOKEN_REJECTED with the service's detail", async () => {
    const { auth: plain } = counted();
    assert.equal((await plain.authenticate(`Bearer ${await sign({ claims: { scope: undefined } })}`)).scopes.size, 0);

    const { auth } = counted({
      checkPrincipal: async (principal) => {
        if (principal.grantId === 'revoked') throw new TokenRejectedError('the authorization was removed');
      },
    });
    const err = await rejectsWith(auth.authenticate(`Bearer ${await sign({ claims: { grant_id: 'revoked' } })}`), 'TOKEN_REJECTED');
    assert.equal(err.message, 'Invalid service access token: the authorization was removed');
    assert.equal(err.definition.status, 401);
    assert.equal(
      err.headers['www-authenticate'],
      `Bearer error="invalid_token", error_description="Invalid service access token: the authorization was removed", resource_metadata="${METADATA}"`,
    );
  });

  test('a rejected token is not cached: the check runs again on the next call', async () => {
    let refuse = true;
    const { auth, calls } = counted({
      checkPrincipal: async () => {
        if (refuse) throw new TokenRejectedError('account disabled');
      },
    });
    const header = `Bearer ${await sign()}`;
    await rejectsWith(auth.authenticate(header), 'TOKEN_REJECTED');
    refuse = false;
    await auth.authenticate(header);
    assert.equal(calls.checks, 2);
  });

  test('any other failure of the service check is not turned into a token error', async () => {
    const { auth } = counted({
      checkPrincipal: async () => {
        throw new Error('database is down');
      },
    });
    await assert.rejects(
      auth.authenticate(`Bearer ${await sign()}`),
      (e: unknown) => !(e instanceof TokenRefusedError) && (e as Error).message === 'database is down',
    );
  });

  test('a revocation made elsewhere is seen after recheckAfterMs without verifying the signature again', async () => {
    let now = Date.now();
    const revoked = new Set<string>();
    const { auth, calls } = counted({
      now: () => now,
      recheckAfterMs: 5_000,
      checkPrincipal: async (principal) => {
        if (revoked.has(principal.grantId ?? '')) throw new TokenRejectedError('its authorization was removed');
      },
    });
    const header = `Bearer ${await sign({ claims: { grant_id: 'grant_x' } })}`;
    await auth.authenticate(header);
    revoked.add('grant_x'); // another instance revoked it; nobody called invalidateGrant here
    now += 4_000;
    await auth.authenticate(header);
    assert.deepEqual(calls, { keys: 1, checks: 1 }, 'within the window the cached entry answers');
    now += 2_000;
    const err = await rejectsWith(auth.authenticate(header), 'TOKEN_REJECTED');
    assert.equal(err.message, 'Invalid service access token: its authorization was removed');
    assert.deepEqual(calls, { keys: 1, checks: 2 }, 'rechecked, not re-verified');
  });

  test('invalidateGrant drops the cached tokens of that grant only', async () => {
    const revoked = new Set<string>();
    const { auth, calls } = counted({
      checkPrincipal: async (principal) => {
        if (revoked.has(principal.grantId ?? '')) throw new TokenRejectedError('the grant was revoked');
      },
    });
    const a = `Bearer ${await sign({ claims: { grant_id: 'grant_a' } })}`;
    const b = `Bearer ${await sign({ claims: { grant_id: 'grant_b' } })}`;
    await auth.authenticate(a);
    await auth.authenticate(b);
    assert.deepEqual(calls, { keys: 2, checks: 2 });

    revoked.add('grant_a');
    await auth.authenticate(a);
    assert.equal(calls.checks, 2, 'still cached: revocation takes effect through invalidateGrant');
    auth.invalidateGrant('grant_a');
    const err = await rejectsWith(auth.authenticate(a), 'TOKEN_REJECTED');
    assert.equal(err.message, 'Invalid service access token: the grant was revoked');
    assert.deepEqual(calls, { keys: 3, checks: 3 }, 'verified and checked again');
    await auth.authenticate(b);
    assert.deepEqual(calls, { keys: 3, checks: 3 }, 'the other grant stays cached');
  });

  test('the cache holds at most cacheSize tokens, evicting the oldest', async () => {
    const { auth, calls } = counted({ cacheSize: 2 });
    const [t1, t2, t3] = [await sign(), await sign(), await sign()].map((t) => `Bearer ${t}`);
    for (const t of [t1, t2, t3]) await auth.authenticate(t!);
    assert.equal(calls.keys, 3);
    await auth.authenticate(t3!);
    await auth.authenticate(t2!);
    assert.equal(calls.keys, 3, 't2 and t3 are cached');
    await auth.authenticate(t1!);
    assert.equal(calls.keys, 4, 't1 was evicted');
  });
});

describe('Challenges', () => {
  test('insufficient_scope names the missing scopes; quotes in descriptions cannot break the header', () => {
    assert.equal(
      challenges.insufficientScope(['mcp:write', 'profile']),
      `Bearer error="insufficient_scope", scope="mcp:write profile", resource_metadata="${METADATA}"`,
    );
    assert.equal(challenges.invalid('say "hi" \\ bye'), `Bearer error="invalid_token", error_description="say 'hi' ' bye", resource_metadata="${METADATA}"`);
  });
});
