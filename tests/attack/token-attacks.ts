/**
 * The token front: forged, altered, misdirected and outlived access tokens on /mcp. Forgeries
 * the attacker could make (no signature, an HMAC keyed with the public key, keys named or embedded
 * in the header, altered claims under a real signature) must get "Invalid MCP token". Tokens signed
 * with the service's own key but wrong in some claim test the checks that follow the signature: as
 * if the key had leaked or the service had a bug, the claim alone must be enough to refuse them.
 */
import { createPublicKey } from 'node:crypto';
import { revokedGrantDetail } from '../../app/auth/principal-check.ts';
import { rawPost, request, type McpResponse } from '../helpers/mcp-calls.ts';
import { ALL_SCOPES } from '../helpers/server.ts';
import { mustRefuse, type Attack } from './attack.ts';
import { expect401, expectRpcError } from './expect.ts';
import { attackerKey, b64url, claimsOf, compact, decodeClaims, freshGrant, hs256, now, serviceKey, serviceSigned, unsigned, type Claims } from './forge.ts';
import { startLure } from './lure.ts';
import type { Party, Target } from './target.ts';

const INVALID = 'Invalid MCP token';
const TWO_AUTHORIZATIONS = 'Invalid request: more than one Authorization header; send exactly one';
const ACCOUNT_CLAIM = 'service_account_id claim missing or invalid';
const rejected = (detail: string) => `Invalid service access token: ${detail}`;
const MISMATCH = rejected('the token does not match its authorization; authorize again in the MCP dialog');
const elsewhere = (named: string, expected: string) =>
  rejected(`it was issued for ${named}, and this server is ${expected}; get a token from this server's MCP dialog (or its CLI, with the same PUBLIC_URL)`);

/** How long a token in use is trusted before the service is asked again (runtime/auth.ts, recheckAfterMs). */
const RECHECK_MS = 5_000;

const profiles = (target: Target, token: string) => target.call(token, 'profiles', {});

type Message = string | ((target: Target) => string);
/** Stands for the target in the `expects` text of a message that names its URLs. */
const ANY_TARGET = { server: { baseUrl: '<base URL>', mcpUrl: '<base URL>/mcp' } } as Target;
const messageFor = (message: Message, target: Target) => (typeof message === 'string' ? message : message(target));

/** An attack that presents one token to /mcp and expects a 401 with this message. */
function refusedToken(name: string, message: Message, token: (target: Target) => Promise<string>): Attack<Target> {
  return {
    front: 'token',
    name,
    expects: `401 "${messageFor(message, ANY_TARGET)}"`,
    run: async (target) => expect401(await profiles(target, await token(target)), messageFor(message, target)),
  };
}

/**
 * A token the attack makes stale through the store, as the admin CLI would (a grant revoked or
 * superseded there): the server hears of it through its revocation feed, within a second. The
 * token may work until then; after it, it must be refused with `message`.
 */
function refusedOnceNoticed(name: string, message: Message, token: (target: Target) => Promise<string>): Attack<Target> {
  return {
    front: 'token',
    name,
    expects: `401 "${messageFor(message, ANY_TARGET)}" within a second`,
    async run(target) {
      const stale = await token(target);
      const deadline = Date.now() + 1_000;
      let res = await profiles(target, stale);
      while (res.status === 200 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
        res = await profiles(target, stale);
      }
      expect401(res, messageFor(message, target));
    },
  };
}

/** A real token of the party's, as the service mints it. */
const realToken = (target: Target, party: Party, scope = ALL_SCOPES) => target.server.token(party, { scope });

/** The header and claims of a real token of A's, and its signature. */
async function realParts(target: Target): Promise<{ header: string; claims: Claims; signature: string }> {
  const token = await realToken(target, target.a);
  const [header, , signature] = token.split('.') as [string, string, string];
  return { header, claims: decodeClaims(token), signature };
}

/** A's claims on a fresh grant, for forgeries that do not involve the service's key. */
async function aClaims(target: Target, overrides: Claims = {}): Promise<Claims> {
  return claimsOf(target, target.a, await freshGrant(target, target.a), overrides);
}

/** B's claims (B's user, B's account) as an attacker would write them. */
const asB = (target: Target): Claims => ({ sub: target.b.userId, service_account_id: target.b.accountId });

async function publicJwk(target: Target): Promise<Record<string, unknown>> {
  const jwks = (await (await fetch(`${target.server.baseUrl}/.well-known/jwks.json`)).json()) as { keys: Record<string, unknown>[] };
  const key = jwks.keys.find((k) => k.kid === serviceKey(target).kid);
  if (!key) throw new Error('the signing key is not in the published JWKS');
  return key;
}

const forgeries: Attack<Target>[] = [
  refusedToken('alg "none", no signature, claims of B', INVALID, async (t) => compact('{"alg":"none","typ":"at+jwt"}', await aClaims(t, asB(t)), unsigned)),
  refusedToken('alg "None" (case variant), A\'s claims', INVALID, async (t) => compact('{"alg":"None","typ":"at+jwt"}', await aClaims(t), unsigned)),
  refusedToken('alg "none" with the signature of a real token kept', INVALID, async (t) => {
    const { claims, signature } = await realParts(t);
    return `${b64url('{"alg":"none","typ":"at+jwt"}')}.${b64url(JSON.stringify(claims))}.${signature}`;
  }),
  refusedToken('HS256 keyed with the published public JWK (JSON text)', INVALID, async (t) => {
    const jwk = await publicJwk(t);
    return compact(JSON.stringify({ alg: 'HS256', typ: 'at+jwt', kid: jwk.kid }), await aClaims(t, asB(t)), hs256(JSON.stringify(jwk)));
  }),
  refusedToken('HS256 keyed with the public key as PEM (SPKI)', INVALID, async (t) => {
    const jwk = await publicJwk(t);
    const pem = createPublicKey({ key: jwk as never, format: 'jwk' }).export({ type: 'spki', format: 'pem' });
    return compact(JSON.stringify({ alg: 'HS256', typ: 'at+jwt', kid: jwk.kid }), await aClaims(t, asB(t)), hs256(String(pem)));
  }),
  refusedToken('another algorithm (ES512) under the service key id', INVALID, async (t) =>
    compact(JSON.stringify({ alg: 'ES512', typ: 'at+jwt', kid: serviceKey(t).kid }), await aClaims(t), async () => new Uint8Array(132).fill(7)),
  ),
  refusedToken("the service key id, signed with the attacker's key", INVALID, async (t) =>
    compact(JSON.stringify({ alg: 'ES256', typ: 'at+jwt', kid: serviceKey(t).kid }), await aClaims(t, asB(t)), (await attackerKey()).sign),
  ),
  refusedToken('kid injection: a path (../../../dev/null)', INVALID, async (t) =>
    compact(JSON.stringify({ alg: 'ES256', typ: 'at+jwt', kid: '../../../../../../dev/null' }), await aClaims(t), (await attackerKey()).sign),
  ),
  refusedToken("kid injection: SQL (' OR '1'='1)", INVALID, async (t) =>
    compact(JSON.stringify({ alg: 'ES256', typ: 'at+jwt', kid: "x' OR '1'='1" }), await aClaims(t), (await attackerKey()).sign),
  ),
  refusedToken("jwk injection: the attacker's public key embedded in the header", INVALID, async (t) => {
    const key = await attackerKey();
    return compact(JSON.stringify({ alg: 'ES256', typ: 'at+jwt', jwk: key.publicJwk }), await aClaims(t, asB(t)), key.sign);
  }),
  refusedToken('psychic signature (r = s = 0) under the service key id', INVALID, async (t) =>
    compact(JSON.stringify({ alg: 'ES256', typ: 'at+jwt', kid: serviceKey(t).kid }), await aClaims(t, asB(t)), async () => new Uint8Array(64)),
  ),
  ...(['jku', 'x5u'] as const).map((param): Attack<Target> => ({
    front: 'token',
    name: `${param} injection: the header names the attacker's key set on a server of theirs`,
    expects: `401 "${INVALID}", and the named URL is never fetched`,
    async run(target) {
      const key = await attackerKey();
      const lure = await startLure({ keys: [{ ...key.publicJwk, kid: 'attacker', alg: 'ES256', use: 'sig' }] });
      try {
        const header = { alg: 'ES256', typ: 'at+jwt', kid: 'attacker', [param]: `${lure.url}/jwks.json` };
        expect401(await profiles(target, await compact(JSON.stringify(header), await aClaims(target, asB(target)), key.sign)), INVALID);
        mustRefuse(lure.hits() === 0, () => `the server fetched the ${param} URL ${lure.hits()} time(s)`);
      } finally {
        await lure.close();
      }
    },
  })),
];

const tampering: Attack<Target>[] = [
  refusedToken("A's real signature over B's sub and account", INVALID, async (t) => {
    const { header, claims, signature } = await realParts(t);
    return `${header}.${b64url(JSON.stringify({ ...claims, ...asB(t) }))}.${signature}`;
  }),
  refusedToken('a read-only token with mcp:write added under its signature', INVALID, async (t) => {
    const token = await realToken(t, t.a, 'mcp:read profile service_account_id');
    const [header, , signature] = token.split('.');
    return `${header}.${b64url(JSON.stringify({ ...decodeClaims(token), scope: ALL_SCOPES }))}.${signature}`;
  }),
  refusedToken("a duplicate service_account_id (B's) appended to the claims under A's signature", INVALID, async (t) => {
    const { header, claims, signature } = await realParts(t);
    const json = JSON.stringify(claims).replace(/}$/, `,"service_account_id":"${t.b.accountId}"}`);
    return `${header}.${b64url(json)}.${signature}`;
  }),
  refusedToken('one bit of the signature flipped', INVALID, async (t) => {
    const token = await realToken(t, t.a);
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const bytes = Buffer.from(signature, 'base64url');
    bytes[10]! ^= 1;
    return `${header}.${payload}.${bytes.toString('base64url')}`;
  }),
  refusedToken('duplicate header parameters: "alg":"ES256" then "alg":"none", no signature', INVALID, async (t) =>
    compact(`{"alg":"ES256","kid":"${serviceKey(t).kid}","typ":"at+jwt","alg":"none"}`, await aClaims(t, asB(t)), unsigned),
  ),
  refusedToken('duplicate header parameters: "alg":"none" then "alg":"ES256", no signature', INVALID, async (t) =>
    compact(`{"alg":"none","kid":"${serviceKey(t).kid}","typ":"at+jwt","alg":"ES256"}`, await aClaims(t, asB(t)), unsigned),
  ),
  refusedToken('the last characters cut off', INVALID, async (t) => (await realToken(t, t.a)).slice(0, -3)),
  refusedToken('a 5-part JWE-shaped token', INVALID, async (t) => `${(await realToken(t, t.a)).split('.').slice(0, 2).join('.')}.a.b.c`),
  {
    front: 'token',
    name: "two Authorization headers: A's real token, then a forged one",
    expects: `400 "${TWO_AUTHORIZATIONS}": a proxy may have judged the other one`,
    async run(target) {
      const res = await rawPost(target.server.mcpUrl, JSON.stringify(request('tools/call', { name: 'profiles', arguments: {} })), {
        'content-type': 'application/json',
        accept: 'application/json',
        authorization: [`Bearer ${target.a.token}`, 'Bearer forged.token.here'] as unknown as string,
      });
      const message = res.status === 400 ? (JSON.parse(res.text) as { error?: { message?: string } }).error?.message : undefined;
      mustRefuse(message === TWO_AUTHORIZATIONS, () => `HTTP ${res.status}: ${res.text.slice(0, 300)}`);
    },
  },
];

/** Claims checked after the signature: tokens signed with the service's own key, one claim wrong. */
const claimChecks: Attack<Target>[] = [
  refusedToken(
    'another issuer',
    (t) => elsewhere('https://issuer.example', t.server.baseUrl),
    (t) => serviceSigned(t, t.a, { claims: { iss: 'https://issuer.example' } }),
  ),
  refusedToken(
    'another audience',
    (t) => elsewhere('https://other.example/mcp', t.server.mcpUrl),
    (t) => serviceSigned(t, t.a, { claims: { aud: 'https://other.example/mcp' } }),
  ),
  refusedToken(
    'the audience of the base URL (not /mcp)',
    (t) => elsewhere(t.server.baseUrl, t.server.mcpUrl),
    (t) => serviceSigned(t, t.a, { claims: { aud: t.server.baseUrl } }),
  ),
  refusedToken('typ "JWT" (an ID token or any other JWT of the same keys)', INVALID, (t) => serviceSigned(t, t.a, { header: { typ: 'JWT' } })),
  refusedToken('no typ', INVALID, (t) => serviceSigned(t, t.a, { header: { typ: undefined } })),
  refusedToken('nbf an hour from now', INVALID, (t) => serviceSigned(t, t.a, { claims: { nbf: now() + 3600 } })),
  refusedToken('crit naming an unknown extension', INVALID, (t) => serviceSigned(t, t.a, { header: { crit: ['x-attack'], 'x-attack': true } })),
  refusedToken('crit b64:false (unencoded payload)', INVALID, (t) => serviceSigned(t, t.a, { header: { crit: ['b64'], b64: false } })),
  refusedToken('iat an hour in the future', INVALID, (t) => serviceSigned(t, t.a, { claims: { iat: now() + 3600, exp: now() + 4000 } })),
  refusedToken('a life of two days (longer than any token is issued for)', INVALID, (t) => serviceSigned(t, t.a, { claims: { exp: now() + 2 * 86_400 } })),
  refusedToken('expired a minute ago', INVALID, (t) => serviceSigned(t, t.a, { claims: { iat: now() - 3600, exp: now() - 60 } })),
  refusedToken('no exp', INVALID, (t) => serviceSigned(t, t.a, { claims: { exp: undefined } })),
  refusedToken('no iat', INVALID, (t) => serviceSigned(t, t.a, { claims: { iat: undefined } })),
  refusedToken('no sub', INVALID, (t) => serviceSigned(t, t.a, { claims: { sub: undefined } })),
  refusedToken('no service_account_id', ACCOUNT_CLAIM, (t) => serviceSigned(t, t.a, { claims: { service_account_id: undefined } })),
  refusedToken('service_account_id a number', ACCOUNT_CLAIM, (t) => serviceSigned(t, t.a, { claims: { service_account_id: 42 } })),
  refusedToken("service_account_id with SQL (' OR 1=1 --)", ACCOUNT_CLAIM, (t) => serviceSigned(t, t.a, { claims: { service_account_id: "x' OR 1=1 --" } })),
];

/** Ids of another account in a correctly signed token: the grant says whose it is. */
const otherIds: Attack<Target>[] = [
  refusedToken("A's grant, B's account id", MISMATCH, (t) => serviceSigned(t, t.a, { claims: { service_account_id: t.b.accountId } })),
  refusedToken("A's grant, B's user and account", MISMATCH, (t) => serviceSigned(t, t.a, { claims: asB(t) })),
  refusedToken("B's grant, A's user and account", MISMATCH, async (t) => serviceSigned(t, t.a, { claims: { grant_id: await freshGrant(t, t.b) } })),
  refusedToken('a grant id that does not exist', rejected('its authorization does not exist; authorize again in the MCP dialog'), (t) =>
    serviceSigned(t, t.a, { claims: { grant_id: 'grt_guessed000000000000' } }),
  ),
  refusedToken('no grant id', rejected('the token names no authorization grant; authorize again in the MCP dialog'), (t) =>
    serviceSigned(t, t.a, { claims: { grant_id: undefined } }),
  ),
];

/** Grants removed, users and accounts disabled: tokens that were good and are no longer. */
const outlived: Attack<Target>[] = [
  refusedOnceNoticed('a removed grant (its token used before the removal)', rejected(revokedGrantDetail({ revoked_reason: 'removed' })), async (t) => {
    const party = await t.freshParty();
    await expectWorks(t, party.token);
    await t.server.admin.authorizations.removeAll(party.userId);
    return party.token;
  }),
  refusedOnceNoticed('a superseded MCP-dialog grant', rejected(revokedGrantDetail({ revoked_reason: 'superseded' })), async (t) => {
    const party = await t.freshParty();
    const holder = { userId: party.userId, accountId: party.accountId };
    const first = await t.server.admin.authorizations.authorizeDialog(holder, ALL_SCOPES.split(' '));
    await expectWorks(t, first.token);
    await t.server.admin.authorizations.authorizeDialog(holder, ALL_SCOPES.split(' '));
    return first.token;
  }),
  refusedOnceNoticed("a connector's grant revoked by the OAuth server", rejected(revokedGrantDetail({ revoked_reason: 'revoked' })), async (t) => {
    const party = await t.freshParty();
    const issued = await t.server.admin.issueToken({ userId: party.userId, accountId: party.accountId, scope: ALL_SCOPES });
    await expectWorks(t, issued.token);
    await t.server.admin.authorizations.revoke([issued.grantId], 'revoked');
    return issued.token;
  }),
  refusedToken('a disabled user', rejected('the user is disabled'), async (t) => {
    const party = await t.freshParty();
    const token = await realToken(t, party);
    await t.server.admin.accounts.disableUser(party.userId);
    return token;
  }),
  refusedToken('a disabled account', rejected('the account is disabled'), async (t) => {
    const party = await t.freshParty();
    const token = await realToken(t, party);
    await t.server.admin.db.updateTable('accounts').set({ status: 'disabled' }).where('id', '=', party.accountId).execute();
    return token;
  }),
  {
    front: 'token',
    name: 'a disabled user whose token was in use a moment before',
    expects: `401 "${rejected('the user is disabled')}" within ${RECHECK_MS / 1000} s (how long a token in use is trusted before the service is asked again)`,
    async run(target) {
      const party = await target.freshParty();
      await expectWorks(target, party.token);
      await target.server.admin.accounts.disableUser(party.userId);
      const deadline = Date.now() + RECHECK_MS + 1000;
      let res = await profiles(target, party.token);
      while (res.status === 200 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 250));
        res = await profiles(target, party.token);
      }
      expect401(res, rejected('the user is disabled'));
    },
  },
  refusedToken('signed by a retired key after its retirement', INVALID, async (t) => {
    const retired = serviceKey(t);
    await t.server.admin.keys.rotate();
    const claims = await aClaims(t, { iat: now() + 30 + 60, exp: now() + 600 });
    return compact(JSON.stringify({ alg: 'ES256', typ: 'at+jwt', kid: retired.kid }), claims, retired.sign);
  }),
];

/** Things that are not access tokens, presented as one. */
const misused: Attack<Target>[] = [
  {
    front: 'token',
    name: 'the token in the query string instead of the header',
    expects: '401 "Authorization header is required in MCP server config"',
    async run(target) {
      const res = await fetch(`${target.server.mcpUrl}?access_token=${target.a.token}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify(request('tools/call', { name: 'profiles', arguments: {} })),
      });
      const text = await res.text();
      expect401(
        { status: res.status, headers: res.headers, text, json: JSON.parse(text), events: [] },
        'Authorization header is required in MCP server config',
      );
    },
  },
  {
    front: 'token',
    name: 'a read-only token calling a write tool',
    expects: '403 "Missing required scope(s): mcp:write", nothing created',
    async run(target) {
      const token = await realToken(target, target.a, 'mcp:read profile service_account_id');
      const res = await target.call(token, 'create_campaign', { service_profile_id: target.a.ids.profile, name: 'Read-only write' });
      expectRpcError(res, 403, 'Missing required scope(s): mcp:write');
    },
  },
  {
    front: 'token',
    name: 'a token of 64 KiB',
    expects: '431 (headers too large) or 401, never read further',
    async run(target) {
      const res = await profiles(target, await serviceSigned(target, target.a, { claims: { padding: 'x'.repeat(64 * 1024) } }));
      mustRefuse(res.status === 431 || res.status === 401, () => `HTTP ${res.status}: ${res.text.slice(0, 300)}`);
    },
  },
];

/** Checks that a token works now, so that what follows proves it stopped. */
async function expectWorks(target: Target, token: string): Promise<void> {
  const res: McpResponse = await profiles(target, token);
  if (res.status !== 200) throw new Error(`the control token does not work: HTTP ${res.status} ${res.text.slice(0, 200)}`);
}

export function tokenAttacks(): Attack<Target>[] {
  return [...forgeries, ...tampering, ...claimChecks, ...otherIds, ...misused, ...outlived];
}
