/**
 * The web pages a signed-in victim has open, for the web attacks: signed in through the sign-in
 * form, an MCP-dialog authorization (so the dialog shows its remove forms), and an OAuth consent
 * page of a connector. Made once per target and shared by the attacks that only read it.
 */
import { authorizeUrl, openConsent, registerClient } from '../helpers/oauth.ts';
import { TEST_PASSWORD } from '../helpers/server.ts';
import { csrfOf, pkce, signIn, WebClient } from '../helpers/web-client.ts';
import { postForms, type PageForm } from './forms.ts';
import type { Party, Target } from './target.ts';

/** The pages whose forms are attacked, by what they are. */
export const PAGES = ['sign-in page', 'dashboard', 'MCP dialog', 'MCP dialog consent', 'connector consent'] as const;
export type PageName = (typeof PAGES)[number];

export interface WebScene {
  victim: Party;
  /** The victim's browser, signed in. */
  browser: WebClient;
  /** The forms of each page, as the victim's browser got them (the sign-in page's from a signed-out browser). */
  forms: Record<PageName, PageForm[]>;
}

const scenes = new WeakMap<Target, Promise<WebScene>>();

/** Signs a party in with a fresh browser; throws unless it worked. */
export async function signedIn(target: Target, party: Party): Promise<WebClient> {
  const browser = new WebClient(target.server.baseUrl);
  const res = await signIn(browser, party.email, TEST_PASSWORD);
  if (res.status !== 303) throw new Error(`sign-in of ${party.email} failed: ${res.status}`);
  return browser;
}

async function makeScene(target: Target): Promise<WebScene> {
  const victim = await target.freshParty();
  const browser = await signedIn(target, victim);
  const consent = await browser.get('/app/mcp/authorize');
  const authorized = await browser.post('/app/mcp/authorize', { _csrf: csrfOf(consent.text), scope: ['mcp:read', 'profile', 'service_account_id'] });
  if (authorized.status !== 303) throw new Error(`the MCP dialog did not authorize: ${authorized.status}`);
  const client = await registerClient(target.server.baseUrl, { client_name: 'Attack scene connector' });
  const connector = await openConsent(browser, authorizeUrl(target.server.baseUrl, { clientId: client.client_id, challenge: pkce().challenge }));
  const pages: Record<PageName, string> = {
    'sign-in page': (await new WebClient(target.server.baseUrl).get('/signin')).text,
    dashboard: (await browser.get('/app')).text,
    'MCP dialog': (await browser.get('/app/mcp')).text,
    'MCP dialog consent': (await browser.get('/app/mcp/authorize')).text,
    'connector consent': connector.text,
  };
  const forms = Object.fromEntries(PAGES.map((p) => [p, postForms(pages[p])])) as Record<PageName, PageForm[]>;
  for (const page of PAGES) if (!forms[page].length) throw new Error(`no POST form found on the ${page}`);
  return { victim, browser, forms };
}

export function webScene(target: Target): Promise<WebScene> {
  let scene = scenes.get(target);
  if (!scene) scenes.set(target, (scene = makeScene(target)));
  return scene;
}
