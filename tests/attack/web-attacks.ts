/**
 * The web front: every POST form found on the victim's pages posted without its CSRF token, with
 * a forged one and with another browser's; places to return to after sign-in and OAuth that lead
 * off the site; planted and replayed session ids; sign-in guessing past the documented limits (20
 * failures per address, 5 per account, per 15 minutes); and another account's things in the pages.
 */
import { randomBytes } from 'node:crypto';
import { snapshot } from '../helpers/outreach.ts';
import { SIGNIN_LIMITS } from '../../app/web/auth-routes.ts';
import { authorizeUrl, registerClient, REDIRECT_URI } from '../helpers/oauth.ts';
import { TEST_PASSWORD, type TestServer } from '../helpers/server.ts';
import { csrfOf, pkce, signIn, WebClient, type WebResponse } from '../helpers/web-client.ts';
import { GotThrough, mustRefuse, type Attack } from './attack.ts';
import { expectNoneOf } from './expect.ts';
import { rawExchange } from './raw-http.ts';
import { PAGES, signedIn, webScene, type PageName } from './web-scene.ts';
import type { Target } from './target.ts';

const EXPIRED = /This form has expired/;

type Variant = 'without its CSRF token' | 'with a forged CSRF token' | "with another browser's CSRF token";
const VARIANTS: readonly Variant[] = ['without its CSRF token', 'with a forged CSRF token', "with another browser's CSRF token"];

async function csrfFor(variant: Variant, target: Target): Promise<string | undefined> {
  if (variant === 'without its CSRF token') return undefined;
  if (variant === 'with a forged CSRF token') return randomBytes(24).toString('base64url');
  return csrfOf((await new WebClient(target.server.baseUrl).get('/signin')).text);
}

/** What a refused form post must leave as it was: the victim's grants, session and the data. */
async function victimState(target: Target, browser: WebClient, userId: string): Promise<string> {
  const grants = (await target.server.admin.authorizations.list(userId)).map((g) => g.id).sort();
  return JSON.stringify({ grants, signedIn: (await browser.get('/app')).status, data: await snapshot(target.server.admin.db) });
}

function csrf(page: PageName, variant: Variant): Attack<Target> {
  return {
    front: 'web',
    name: `CSRF: every form of the ${page}, ${variant}`,
    expects: '403 "This form has expired" for each, and nothing changed (grants, session, data)',
    async run(target) {
      const scene = await webScene(target);
      for (const form of scene.forms[page]) {
        const fields: Record<string, string | string[]> = { ...form.fields };
        delete fields._csrf;
        const token = await csrfFor(variant, target);
        if (token !== undefined) fields._csrf = token;
        // Login CSRF: the attacker's page signs a fresh browser in with credentials; the rest use the victim's session.
        const signingIn = form.action === '/signin';
        const browser = signingIn ? new WebClient(target.server.baseUrl) : scene.browser;
        if (signingIn) Object.assign(fields, { email: scene.victim.email, password: TEST_PASSWORD });
        const before = await victimState(target, scene.browser, scene.victim.userId);
        const res = await browser.post(form.action, fields);
        mustRefuse(res.status === 403 && EXPIRED.test(res.text), () => `POST ${form.action}: HTTP ${res.status} ${res.location ?? ''}`);
        mustRefuse(
          (await victimState(target, scene.browser, scene.victim.userId)) === before,
          () => `POST ${form.action} was refused, but changed the victim's state`,
        );
        if (signingIn) mustRefuse((await browser.get('/app')).status === 303, () => 'the refused sign-in signed the browser in');
      }
    },
  };
}

/** Return paths that leave the site (or try to), as they would be typed into a link. */
const HOSTILE_NEXT = [
  '//evil.example/app',
  'https://evil.example/app',
  '/\\evil.example',
  '/\\/evil.example',
  '/%2F%2Fevil.example',
  '/app/../../evil',
  '/app@evil.example',
  ' //evil.example',
  'javascript:alert(1)',
  '/app\r\nLocation: https://evil.example',
  'http:evil.example',
];

/** A Location must stay on this server. */
function sameSite(target: Target, res: WebResponse, what: string): void {
  if (res.location === undefined) return;
  const url = new URL(res.location);
  mustRefuse(url.origin === target.server.baseUrl, () => `${what} redirects to ${res.location}`);
}

const openRedirect: Attack<Target>[] = [
  {
    front: 'web',
    name: `open redirect: the sign-in form's next (${HOSTILE_NEXT.length} hostile values)`,
    expects: 'after signing in, a redirect to this site only (the dashboard)',
    async run(target) {
      const party = await target.freshParty();
      for (const next of HOSTILE_NEXT) {
        const browser = new WebClient(target.server.baseUrl);
        const page = await browser.get('/signin');
        const res = await browser.post('/signin', { _csrf: csrfOf(page.text), email: party.email, password: TEST_PASSWORD, next });
        sameSite(target, res, `next=${JSON.stringify(next)}`);
      }
    },
  },
  {
    front: 'web',
    name: `open redirect: /signin?next=… when already signed in (${HOSTILE_NEXT.length} hostile values)`,
    expects: 'a redirect to this site only',
    async run(target) {
      const browser = await signedIn(target, await target.freshParty());
      for (const next of HOSTILE_NEXT) sameSite(target, await browser.get(`/signin?next=${encodeURIComponent(next)}`), `next=${JSON.stringify(next)}`);
    },
  },
  {
    front: 'web',
    name: 'open redirect: a signed-out visit to crafted paths (the sign-in page remembers them)',
    expects: 'a redirect to this site only',
    async run(target) {
      // Written on the socket as they are: a URL library would resolve //evil.example to another host.
      for (const path of [
        '//evil.example/app',
        '/app//evil.example',
        '/app/%2F%2Fevil.example',
        '/app/..%2F..%2F%2Fevil.example',
        '/app/mcp?x=//evil.example',
        '/\\evil.example/app',
      ]) {
        const answer = await rawExchange(target.server.port, `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${target.server.port}\r\nConnection: close\r\n\r\n`, {
          giveUpMs: 3000,
        });
        const location = /\r\nlocation: ([^\r]*)/i.exec(answer.text)?.[1];
        mustRefuse(
          location === undefined || new URL(location, target.server.baseUrl).origin === target.server.baseUrl,
          () => `${path} redirects to ${location}`,
        );
      }
    },
  },
  {
    front: 'web',
    name: 'open redirect: OAuth authorization with a redirect_uri the client did not register',
    expects: 'an error page, never a redirect to the unregistered URI',
    async run(target) {
      const browser = await signedIn(target, await target.freshParty());
      const client = await registerClient(target.server.baseUrl);
      for (const redirectUri of [
        'https://evil.example/callback',
        `${REDIRECT_URI}/../../evil`,
        'http://127.0.0.1:9@evil.example/callback',
        `${REDIRECT_URI}.evil.example`,
        `${REDIRECT_URI}?next=https://evil.example`,
      ]) {
        const res = await browser.follow(authorizeUrl(target.server.baseUrl, { clientId: client.client_id, challenge: pkce().challenge, redirectUri }));
        mustRefuse(!res.location?.includes('evil') && !res.location?.startsWith(REDIRECT_URI), () => `redirect_uri ${redirectUri}: sent to ${res.location}`);
      }
    },
  },
  {
    front: 'web',
    name: 'OAuth registration of javascript:, data: and file: redirect URIs',
    expects: '400 invalid_redirect_uri (or invalid_client_metadata): no such client exists',
    async run(target) {
      for (const uri of ['javascript:alert(1)//', 'data:text/html,<script>alert(1)</script>', 'file:///etc/passwd']) {
        const res = await fetch(`${target.server.baseUrl}/oauth/register`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ client_name: 'x', redirect_uris: [uri], token_endpoint_auth_method: 'none' }),
        });
        const text = await res.text();
        mustRefuse(res.status === 400, () => `${uri}: HTTP ${res.status} ${text.slice(0, 200)}`);
      }
    },
  },
];

const sessionCookie = (browser: WebClient, res: WebResponse) =>
  res.headers
    .getSetCookie()
    .find((c) => c.startsWith('outreach_session='))
    ?.split(';')[0]
    ?.slice('outreach_session='.length) ?? (browser.cookieNames().includes('outreach_session') ? 'kept' : undefined);

const sessionFixation: Attack<Target>[] = [
  {
    front: 'web',
    name: "session fixation: the attacker's own session id planted in the victim's browser before sign-in",
    expects: "a new session id at sign-in; the planted id still shows the attacker's account, never the victim's",
    async run(target) {
      const attacker = await target.freshParty();
      const victim = await target.freshParty();
      const attackerBrowser = new WebClient(target.server.baseUrl);
      const planted = sessionCookie(attackerBrowser, await signIn(attackerBrowser, attacker.email, TEST_PASSWORD));
      if (!planted || planted === 'kept') throw new Error('the attacker got no session cookie');
      const page = await new WebClient(target.server.baseUrl).get('/signin');
      const res = await fetch(`${target.server.baseUrl}/signin`, {
        method: 'POST',
        redirect: 'manual',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          cookie: `outreach_session=${planted}; ${page.headers
            .getSetCookie()
            .map((c) => c.split(';')[0])
            .join('; ')}`,
        },
        body: new URLSearchParams({ _csrf: csrfOf(page.text), email: victim.email, password: TEST_PASSWORD }).toString(),
      });
      const text = await res.text();
      const issued = res.headers.getSetCookie().find((c) => c.startsWith('outreach_session='));
      // The sign-in refused outright is as good: the planted session is the one read, and the form's
      // CSRF secret lives in the victim's own session, not in it.
      const refused = res.status === 403 && EXPIRED.test(text);
      mustRefuse(
        refused || (res.status === 303 && issued !== undefined && !issued.startsWith(`outreach_session=${planted};`)),
        () => `HTTP ${res.status}, Set-Cookie ${issued}`,
      );
      const withPlanted = await attackerBrowser.get('/app');
      expectNoneOf(withPlanted.text, [victim.email, ...victim.names], 'the planted session');
    },
  },
  {
    front: 'web',
    name: 'session fixation: a made-up session id',
    expects: 'not signed in with it; signing in issues another id',
    async run(target) {
      const party = await target.freshParty();
      const made = `${randomBytes(24).toString('base64url')}.${randomBytes(32).toString('base64url')}`;
      const res = await fetch(`${target.server.baseUrl}/app`, { redirect: 'manual', headers: { cookie: `outreach_session=${made}` } });
      await res.text();
      mustRefuse(res.status === 303, () => `GET /app with a made-up session: HTTP ${res.status}`);
      const browser = new WebClient(target.server.baseUrl);
      const signin = await signIn(browser, party.email, TEST_PASSWORD);
      mustRefuse(!signin.headers.getSetCookie().some((c) => c.includes(made)), () => 'the made-up id was kept');
    },
  },
  {
    front: 'web',
    name: 'a session id replayed after signing out',
    expects: 'the old id no longer signs anyone in (the session is ended on the server, not only in the browser)',
    async run(target) {
      const party = await target.freshParty();
      const browser = new WebClient(target.server.baseUrl);
      const signin = await signIn(browser, party.email, TEST_PASSWORD);
      const id = signin.headers
        .getSetCookie()
        .find((c) => c.startsWith('outreach_session='))!
        .split(';')[0]!;
      const dashboard = await browser.get('/app');
      await browser.post('/signout', { _csrf: csrfOf(dashboard.text) });
      const res = await fetch(`${target.server.baseUrl}/app`, { redirect: 'manual', headers: { cookie: id } });
      await res.text();
      mustRefuse(res.status === 303, () => `GET /app with the signed-out session id: HTTP ${res.status}`);
    },
  },
];

/** Posts the sign-in form from a fresh browser (extra headers on the post, e.g. a spoofed X-Forwarded-For). */
async function attempt(server: TestServer, email: string, password: string, headers: Record<string, string> = {}): Promise<WebResponse> {
  const browser = new WebClient(server.baseUrl);
  const page = await browser.get('/signin');
  return browser.request('POST', '/signin', { headers, form: { _csrf: csrfOf(page.text), email, password } });
}

function locked(res: WebResponse, what: string): void {
  mustRefuse(res.status === 429 && Number(res.headers.get('retry-after')) > 0, () => `${what}: HTTP ${res.status} ${res.location ?? ''}`);
}

const bruteForce: Attack<Target>[] = [
  {
    front: 'web',
    name: `sign-in guessing: ${SIGNIN_LIMITS.perEmail} wrong passwords for one account, then the right one`,
    expects: '429 with Retry-After, even for the right password, even from a spoofed X-Forwarded-For (no proxy is trusted)',
    run: (target) =>
      target.withOwnServer({}, async (server) => {
        const victim = await server.createAccount();
        for (let i = 0; i < SIGNIN_LIMITS.perEmail; i++) await attempt(server, victim.email, `guess-${i}`);
        locked(await attempt(server, victim.email, TEST_PASSWORD), 'the right password');
        locked(await attempt(server, victim.email, TEST_PASSWORD, { 'x-forwarded-for': '203.0.113.7' }), 'from a spoofed X-Forwarded-For');
      }),
  },
  {
    front: 'web',
    name: 'sign-in guessing: the same account spelled differently (case, spaces) to get more tries',
    expects: `the ${SIGNIN_LIMITS.perEmail} failures counted against one account: 429`,
    run: (target) =>
      target.withOwnServer({}, async (server) => {
        const victim = await server.createAccount();
        const spellings = [
          victim.email.toUpperCase(),
          ` ${victim.email}`,
          `${victim.email} `,
          victim.email.replace(/^./, (c) => c.toUpperCase()),
          victim.email,
        ];
        for (let i = 0; i < SIGNIN_LIMITS.perEmail; i++) await attempt(server, spellings[i % spellings.length]!, `guess-${i}`);
        locked(await attempt(server, victim.email, TEST_PASSWORD), 'the right password');
      }),
  },
  {
    front: 'web',
    name: `sign-in guessing: ${SIGNIN_LIMITS.perAddress} failures from one address across accounts`,
    expects: 'every further sign-in from the address waits (429), a spoofed X-Forwarded-For too',
    run: (target) =>
      target.withOwnServer({}, async (server) => {
        const other = await server.createAccount();
        // Wrong passwords for existing accounts (one each, under the per-account limit) and for
        // addresses nobody has count alike. Most guesses name existing accounts: an unknown address
        // costs the server a hash at full cost (so that it answers as slowly as for a real account),
        // about a second here, which twenty of them would spend for nothing this attack needs.
        const accounts = await Promise.all(Array.from({ length: SIGNIN_LIMITS.perAddress - 2 }, () => server.createAccount()));
        const guessed = [...accounts.map((a) => a.email), 'guess0@example.com', 'guess1@example.com'];
        for (const email of guessed) await attempt(server, email, 'x');
        locked(await attempt(server, other.email, TEST_PASSWORD), 'another account, right password');
        locked(await attempt(server, other.email, TEST_PASSWORD, { 'x-forwarded-for': '198.51.100.9' }), 'from a spoofed X-Forwarded-For');
      }),
  },
  {
    front: 'web',
    name: 'sign-in guessing: 12 guesses at once for one account',
    expects: `no more than ${SIGNIN_LIMITS.perEmail} get to try a password; the rest 429`,
    run: (target) =>
      target.withOwnServer({}, async (server) => {
        const victim = await server.createAccount();
        const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => attempt(server, victim.email, i === 11 ? TEST_PASSWORD : `guess-${i}`)));
        const tried = answers.filter((a) => a.status !== 429).length;
        mustRefuse(tried <= SIGNIN_LIMITS.perEmail, () => `${tried} tried a password: ${answers.map((a) => a.status).join(' ')}`);
      }),
  },
];

const pages: Attack<Target>[] = [
  {
    front: 'web',
    name: "another account's campaign page, by its id",
    expects: "404, none of B's data on it",
    async run(target) {
      const browser = await signedIn(target, target.a);
      const res = await browser.get(`/app/campaigns/${target.b.ids.campaign}`);
      mustRefuse(res.status === 404, () => `HTTP ${res.status}`);
      expectNoneOf(res.text, target.b.names, 'the page');
    },
  },
  {
    front: 'web',
    name: "removing another user's authorization through the dialog's form",
    expects: "the form answered (303 back to the dialog), B's grant stays active and B's token keeps working; the same form removes the user's own",
    async run(target) {
      /** Posts the dialog's remove form for `grantId` as `browser`; the answer must be the form's own, back to the dialog. */
      const remove = async (browser: WebClient, grantId: string) => {
        const dialog = await browser.get('/app/mcp');
        if (dialog.status !== 200) throw new Error(`the MCP dialog: HTTP ${dialog.status}`);
        const res = await browser.post(`/app/mcp/grants/${grantId}/remove`, { _csrf: csrfOf(dialog.text) });
        if (res.status !== 303 || res.location !== `${target.server.baseUrl}/app/mcp`)
          throw new Error(`the remove form was not answered as a form: HTTP ${res.status} ${res.location ?? ''} ${res.text.slice(0, 200)}`);
      };
      const grant = (await target.server.admin.authorizations.list(target.b.userId))[0];
      if (!grant) throw new Error('B has no grant');
      await remove(await signedIn(target, target.a), grant.id);
      const still = (await target.server.admin.authorizations.list(target.b.userId)).some((g) => g.id === grant.id);
      mustRefuse(still, () => `B's grant ${grant.id} was removed by A`);
      const works = await target.call(target.b.token, 'profiles', {});
      mustRefuse(
        works.status === 200 && works.json?.result?.isError !== true,
        () => `B's token no longer works: HTTP ${works.status} ${works.text.slice(0, 200)}`,
      );
      // The positive control, by a party of its own (A's token serves the later attacks): its own grant goes.
      const own = await target.freshParty();
      const ownGrant = (await target.server.admin.authorizations.list(own.userId))[0];
      if (!ownGrant) throw new Error('the fresh party has no grant');
      await remove(await signedIn(target, own), ownGrant.id);
      if ((await target.server.admin.authorizations.list(own.userId)).some((g) => g.id === ownGrant.id))
        throw new Error("the positive control failed: the form did not remove the user's own grant");
    },
  },
  {
    front: 'web',
    name: "the dashboard and activity pages of A, looked through for B's data",
    expects: "none of B's ids or names",
    async run(target) {
      const browser = await signedIn(target, target.a);
      for (const path of ['/app', '/app/activity', '/app/mcp']) {
        // The activity shows each failed call's message, and the isolation attacks are A's own calls
        // naming B's ids, answered "not found": an id A's client sent, echoed back to A, is not B's
        // data (a message is a catalog template filled from the call's own arguments). Everything
        // else on the page must hold none of B's ids or names.
        const res = await browser.get(path);
        // A page that is not shown (a redirect to sign in, an error) would hold nothing of anyone's.
        if (res.status !== 200) throw new Error(`${path}: HTTP ${res.status} ${res.location ?? ''}`);
        const page = res.text.replace(/<div class="hint error-message">[^<]*<\/div>/g, '');
        expectNoneOf(page, [...Object.values(target.b.ids), ...target.b.names], path);
        if (path === '/app' && !page.includes(target.a.names[0]!))
          throw new Error(`the positive control failed: /app does not show A's campaign "${target.a.names[0]}"`);
      }
    },
  },
  {
    front: 'web',
    name: 'a page that shows a token, read by a script of another site (CORS)',
    expects: 'no Access-Control-Allow-Origin or -Credentials on the signed-in pages',
    async run(target) {
      const browser = await signedIn(target, await target.freshParty());
      for (const path of ['/app/mcp', '/app']) {
        const res = await browser.request('GET', path, { headers: { origin: 'https://evil.example' } });
        mustRefuse(
          !res.headers.has('access-control-allow-origin') && !res.headers.has('access-control-allow-credentials'),
          () => `${path}: ACAO ${res.headers.get('access-control-allow-origin')}, ACAC ${res.headers.get('access-control-allow-credentials')}`,
        );
      }
    },
  },
  {
    front: 'web',
    name: 'stored script: a campaign named <script>…</script> on the dashboard and its page',
    expects: 'the name shown escaped, never as markup',
    async run(target) {
      const party = await target.freshParty();
      const name = '<script>alert(document.cookie)</script><img src=x onerror=alert(1)>';
      const created = await target.call(party.token, 'create_campaign', { service_profile_id: party.ids.profile, name });
      const id = created.json?.result?.structuredContent?.campaign?.id as string | undefined;
      if (!id) throw new Error(`create_campaign failed: ${created.text.slice(0, 200)}`);
      const browser = await signedIn(target, party);
      for (const path of ['/app', `/app/campaigns/${id}`]) {
        const res = await browser.get(path);
        if (res.status !== 200) throw new Error(`${path}: HTTP ${res.status} ${res.location ?? ''}`);
        if (res.text.includes('<script>alert') || res.text.includes('<img src=x')) throw new GotThrough(`${path} shows the name as markup`);
        if (!res.text.includes('&lt;script&gt;alert(document.cookie)&lt;/script&gt;')) throw new Error(`${path} does not show the name, escaped`);
      }
    },
  },
];

export function webAttacks(): Attack<Target>[] {
  return [...PAGES.flatMap((page) => VARIANTS.map((variant) => csrf(page, variant))), ...openRedirect, ...sessionFixation, ...pages, ...bruteForce];
}
