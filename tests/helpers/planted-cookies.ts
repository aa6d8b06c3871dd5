/**
 * Cookie tossing against the web app's CSRF check, over plain HTTP: the victim's browser (a Cookie
 * header), what an attacker takes from its own visit to /signin, and a form post whose Cookie
 * header has the attacker's planted cookies first, as a browser sends cookies of a longer path.
 */
import { csrfOf } from './web-client.ts';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

/** The `name=value` pairs a response sets. */
export const setCookiePairs = (res: Response): string[] => res.headers.getSetCookie().map((line) => line.split(';', 1)[0]!);

/**
 * A browser signed in through the form that opened the MCP dialog (so its session holds a CSRF
 * secret): its Cookie header, every cookie on path /.
 */
export async function signedInCookies(baseUrl: string, email: string, password: string): Promise<string> {
  const jar = new Map<string, string>();
  const keep = (res: Response) => {
    for (const pair of setCookiePairs(res)) jar.set(pair.split('=', 1)[0]!, pair);
    return res;
  };
  const header = () => [...jar.values()].join('; ');
  const form = keep(await fetch(`${baseUrl}/signin`));
  const body = new URLSearchParams({ _csrf: csrfOf(await form.text()), email, password }).toString();
  const signedIn = keep(await fetch(`${baseUrl}/signin`, { method: 'POST', redirect: 'manual', headers: { cookie: header(), ...FORM }, body }));
  if (signedIn.status !== 303) throw new Error(`sign-in failed: HTTP ${signedIn.status}`);
  const dialog = keep(await fetch(`${baseUrl}/app/mcp`, { headers: { cookie: header() } }));
  if (dialog.status !== 200) throw new Error(`the MCP dialog did not open: HTTP ${dialog.status}`);
  return header();
}

/** What an attacker takes from its own visit to the sign-in page: the cookies it set and the form's token. */
export async function attackerSigninForm(baseUrl: string): Promise<{ cookies: string[]; token: string }> {
  const res = await fetch(`${baseUrl}/signin`);
  return { cookies: setCookiePairs(res), token: csrfOf(await res.text()) };
}

/** POSTs a form with exactly this Cookie header; no redirect is followed. */
export async function postForm(
  url: string,
  cookie: string,
  fields: Record<string, string>,
): Promise<{ status: number; location: string | null; text: string }> {
  const res = await fetch(url, { method: 'POST', redirect: 'manual', headers: { cookie, ...FORM }, body: new URLSearchParams(fields).toString() });
  return { status: res.status, location: res.headers.get('location'), text: await res.text() };
}
