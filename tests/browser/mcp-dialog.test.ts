/**
 * The MCP dialog in Chromium against the real server: sign-in, "Authorize MCP", the URL and
 * header the page shows working at /mcp, the copy buttons and ready-to-paste configurations,
 * removing and narrowing the authorization, a keyboard-only pass, a clean console under the
 * strict CSP, and screenshots at a phone's and a laptop's width without sideways scrolling.
 * (The protocol-level rules of these pages are tested over plain HTTP in tests/e2e/web.test.ts.)
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { callTool } from '../helpers/mcp-calls.ts';
import {
  andWaitForPage,
  assertNoHorizontalOverflow,
  chromiumSkip,
  clipboardText,
  focused,
  focusedOnArrival,
  launchChromium,
  openContext,
  ProblemLog,
  screenshot,
  submitSignIn,
  tab,
  tabTo,
  VIEWPORTS,
  pagePath as path,
} from '../helpers/browser.ts';
import { activityWritten, postMcp, startTestServer, TEST_PASSWORD, type TestServer } from '../helpers/server.ts';

type Account = Awaited<ReturnType<TestServer['createAccount']>>;
type Viewport = { width: number; height: number };

const REMOVED = 'Invalid service access token: its authorization was removed; authorize again in the MCP dialog';
const CONFIGS = ['claude-code', 'cursor', 'vscode', 'generic', 'claude-cli'];
/** The configurations with the URL alone, first on the page, and their folded titles (tab stops). */
const SIGN_IN_CONFIGS = ['signin-connector', 'signin-claude-cli', 'signin-cursor', 'signin-vscode'];
const SIGN_IN_SUMMARIES = [
  'summary "Claude or ChatGPT (custom connector)"',
  'summary "Claude Code (command)"',
  'summary "Cursor (mcp.json)"',
  'summary "VS Code (.vscode/mcp.json)"',
];
/** The tab stops of the top bar of a signed-in page, in order. */
const TOP_BAR = [
  'a "Skip to content"',
  'a "Outreach"',
  'a "Dashboard"',
  'a "Profiles"',
  'a "Suppression list"',
  'a "Activity"',
  'a "MCP"',
  'a "Settings"',
  'a "Docs"',
  'button "Sign out"',
];

const scopeBox = (page: Page, scope: string) => page.getByRole('checkbox', { name: new RegExp(`^${scope}\\b`) });

/** The server entry of a client configuration: the object that has the `url`. */
function serverEntry(config: unknown): { url?: unknown; headers?: Record<string, unknown> } | undefined {
  if (typeof config !== 'object' || config === null) return undefined;
  if ('url' in config) return config;
  for (const value of Object.values(config)) {
    const found = serverEntry(value);
    if (found) return found;
  }
  return undefined;
}

describe('the MCP dialog in Chromium', { skip: chromiumSkip(), timeout: 150_000 }, () => {
  let server: TestServer;
  let browser: Browser;
  /** Every page of every test in this file. */
  const log = new ProblemLog();

  before(async () => {
    [server, browser] = await Promise.all([startTestServer(), launchChromium()]);
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  /** A fresh context (no cookies), watched by the log, that may use the clipboard on the server's origin. */
  async function open(viewport: Viewport = VIEWPORTS.wide): Promise<{ context: BrowserContext; page: Page }> {
    const context = await openContext(browser, log, { viewport });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.baseUrl });
    return { context, page: await context.newPage() };
  }

  /** A new account (two profiles) signed in on a fresh page, which shows the dashboard. */
  async function signedIn(viewport?: Viewport): Promise<{ context: BrowserContext; page: Page; account: Account }> {
    const account = await server.createAccount({ profiles: 2 });
    const { context, page } = await open(viewport);
    await page.goto(`${server.baseUrl}/signin`);
    await submitSignIn(page, account.email, TEST_PASSWORD);
    assert.equal(path(page), '/app');
    return { context, page, account };
  }

  /** "Authorize MCP" (or "Authorize again") in the dialog with these scopes unchecked; the URL and header the page then shows. */
  async function authorize(page: Page, uncheck: string[] = [], beforeSubmit?: () => Promise<void>): Promise<{ url: string; header: string }> {
    await page.goto(`${server.baseUrl}/app/mcp`);
    await andWaitForPage(page, () => page.getByRole('link', { name: /^Authorize (MCP|again)$/ }).click());
    assert.equal(path(page), '/app/mcp/authorize');
    for (const scope of uncheck) await scopeBox(page, scope).uncheck();
    await beforeSubmit?.();
    await andWaitForPage(page, () => page.getByRole('button', { name: 'Authorize', exact: true }).click());
    assert.equal(path(page), '/app/mcp');
    return { url: await page.locator('#mcp-url').inputValue(), header: await page.locator('#mcp-header').inputValue() };
  }

  /** "Remove MCP authorization" and its confirmation page, which names every authorization that ends. */
  async function removeEverything(page: Page, expectedNames: string[]): Promise<void> {
    await andWaitForPage(page, () => page.getByRole('link', { name: 'Remove MCP authorization' }).click());
    assert.equal(path(page), '/app/mcp/remove');
    assert.equal((await page.locator('h1').textContent())?.trim(), 'Remove MCP authorization?');
    assert.deepEqual(await page.locator('.plain-list li strong').allTextContents(), expectedNames);
    await andWaitForPage(page, () => page.getByRole('button', { name: 'Remove MCP authorization' }).click());
    assert.equal(path(page), '/app/mcp');
  }

  test('a wrong password shows the generic error, marks both fields invalid, keeps the email and puts the focus in the password field', async () => {
    const account = await server.createAccount();
    const { context, page } = await open();
    try {
      await page.goto(`${server.baseUrl}/signin`);
      assert.equal((await focusedOnArrival(page)).name, 'input#email', 'the email field has the focus on arrival');
      await submitSignIn(page, account.email, 'wrong-password');

      assert.equal((await page.getByRole('alert').textContent())?.trim(), 'Email or password is incorrect.');
      for (const field of ['#email', '#password']) {
        assert.equal(await page.locator(field).getAttribute('aria-invalid'), 'true', field);
        assert.equal(await page.locator(field).getAttribute('aria-describedby'), 'signin-error', `${field} is described by the error`);
      }
      assert.equal(await page.locator('#email').inputValue(), account.email);
      assert.equal(await page.locator('#password').inputValue(), '');
      assert.equal((await focused(page)).name, 'input#password', 'the field to fix has the focus');

      await page.goto(`${server.baseUrl}/app`);
      assert.equal(path(page), '/signin', 'not signed in');
    } finally {
      await context.close();
    }
  });

  test('"Authorize MCP" with every scope: the URL and header on the page work at /mcp, the copy buttons copy them, each configuration holds them', async () => {
    const { context, page, account } = await signedIn();
    try {
      const { url, header } = await authorize(page);
      assert.equal(url, server.mcpUrl);
      assert.match(header, /^Bearer [A-Za-z0-9._-]+$/);
      const res = await postMcp(url, callTool('profiles'), { authorization: header });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(
        res.json.result.structuredContent.profiles.map((p: { id: string }) => p.id),
        account.profileIds,
      );

      // The copy buttons exist only with the page's script, which shows them.
      for (const [id, value] of [
        ['mcp-header', header],
        ['mcp-url', url],
      ] as const) {
        const button = page.locator(`[data-copy="${id}"]`);
        assert.ok(await button.isVisible(), `copy button of #${id}`);
        await button.click();
        assert.equal(await clipboardText(page), value, `the clipboard holds exactly #${id}`);
        assert.equal(await page.locator(`#${id}-status`).textContent(), 'Copied.');
      }

      for (const id of CONFIGS) {
        const area = page.locator(`#config-${id}`);
        assert.equal(await area.isVisible(), false, `${id} is folded`);
        await page.locator('details', { has: area }).locator('summary').click();
        assert.ok(await area.isVisible(), `${id} unfolds`);
        const text = await area.inputValue();
        if (id === 'claude-cli') {
          // The shell splits the command into exactly these words (printf stands in for claude).
          const words = execFileSync('sh', ['-c', text.replace(/^claude /, `printf '%s\\n' `)], { encoding: 'utf8' })
            .trimEnd()
            .split('\n');
          assert.deepEqual(words, ['mcp', 'add', '--transport', 'http', 'outreach-mcp', url, '--header', `Authorization: ${header}`], text);
        } else {
          const entry = serverEntry(JSON.parse(text));
          assert.equal(entry?.url, url, text);
          assert.equal(entry?.headers?.Authorization, header, text);
        }
        await page.locator(`[data-copy="config-${id}"]`).click();
        assert.equal(await clipboardText(page), text, `the copy button of ${id} copies the whole configuration`);
      }

      // The configurations for clients that sign in by themselves carry the URL and nothing else.
      for (const id of SIGN_IN_CONFIGS) {
        const area = page.locator(`#config-${id}`);
        await page.locator('details', { has: area }).locator('summary').click();
        const text = await area.inputValue();
        if (id === 'signin-connector') assert.equal(text, url);
        else if (id === 'signin-claude-cli') {
          const words = execFileSync('sh', ['-c', text.replace(/^claude /, `printf '%s\\n' `)], { encoding: 'utf8' })
            .trimEnd()
            .split('\n');
          assert.deepEqual(words, ['mcp', 'add', '--transport', 'http', 'outreach-mcp', url], text);
        } else {
          const entry = serverEntry(JSON.parse(text));
          assert.equal(entry?.url, url, text);
          assert.equal(entry?.headers, undefined, `${id} has no header: the client signs in`);
        }
        assert.ok(!text.includes('Bearer'), `${id} holds no token`);
      }
    } finally {
      await context.close();
    }
  });

  test('"Remove MCP authorization": the page shows no token any more and /mcp refuses the old one with the interface message', async () => {
    const { context, page } = await signedIn();
    try {
      const { header } = await authorize(page);
      await removeEverything(page, ['MCP dialog']);
      assert.equal((await page.locator('.alert').textContent())?.trim(), 'Removed the MCP authorization: their tokens no longer work.');
      assert.equal(await page.locator('#mcp-header').count(), 0);
      assert.ok(await page.getByText('No client is authorized.').isVisible());

      const res = await postMcp(server.mcpUrl, callTool('profiles'), { authorization: header });
      assert.equal(res.status, 401, res.text);
      assert.equal(res.json.error.message, REMOVED);
    } finally {
      await context.close();
    }
  });

  test('removing one authorization asks first and names it; Cancel keeps it; the list shows when each was last used and expires', async () => {
    const { context, page, account } = await signedIn();
    try {
      const { header } = await authorize(page);
      await postMcp(server.mcpUrl, callTool('profiles'), { authorization: header });
      await activityWritten(server, account.accountId, 1);
      await page.goto(`${server.baseUrl}/app/mcp`);
      const row = page.locator('tbody tr', { hasText: 'MCP dialog' });
      const cells = await row.locator('td').allTextContents();
      const [lastUsed, expires] = [cells[3]!.trim(), cells[4]!.trim()];
      assert.match(lastUsed, /^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/, 'last used: the tool call just made');
      assert.match(expires, /^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/, 'the dialog token expires in an hour');

      await andWaitForPage(page, () => page.getByRole('link', { name: 'Remove the authorization of MCP dialog' }).click());
      assert.match(path(page), /^\/app\/mcp\/grants\/[^/]+\/remove$/);
      assert.equal((await page.locator('h1').textContent())?.trim(), 'Remove the authorization of MCP dialog?');
      await andWaitForPage(page, () => page.getByRole('link', { name: 'Cancel' }).click());
      assert.equal(path(page), '/app/mcp');
      assert.equal((await postMcp(server.mcpUrl, callTool('profiles'), { authorization: header })).status, 200, 'Cancel removed nothing');

      // Keyboard only on the confirmation page: Tab reaches the button, Enter confirms.
      await andWaitForPage(page, () => page.getByRole('link', { name: 'Remove the authorization of MCP dialog' }).click());
      await tabTo(page, 'button "Remove authorization"');
      await andWaitForPage(page, () => page.keyboard.press('Enter'));
      assert.equal(path(page), '/app/mcp');
      assert.equal((await page.locator('.alert').textContent())?.trim(), 'Removed the authorization: its tokens no longer work.');
      assert.equal((await postMcp(server.mcpUrl, callTool('profiles'), { authorization: header })).status, 401);
    } finally {
      await context.close();
    }
  });

  test('authorizing again with mcp:write unchecked: reads work, a write tool answers 403 "Missing required scope(s): mcp:write"', async () => {
    const { context, page, account } = await signedIn();
    try {
      await authorize(page);
      const { header } = await authorize(page, ['mcp:write']);
      assert.equal((await page.locator('p.hint', { hasText: 'Scopes:' }).textContent())?.trim(), 'Scopes: mcp:read profile service_account_id');

      assert.equal((await postMcp(server.mcpUrl, callTool('profiles'), { authorization: header })).status, 200);
      const write = await postMcp(server.mcpUrl, callTool('create_campaign', { service_profile_id: account.profileIds[0], name: 'x' }), {
        authorization: header,
      });
      assert.equal(write.status, 403, write.text);
      assert.equal(write.json.error.message, 'Missing required scope(s): mcp:write');
    } finally {
      await context.close();
    }
  });

  /*
   * Keyboard only, from a fresh page: what is asserted is that the skip link is the first stop of
   * every page and moves the focus past the top bar; that every stop is on screen with a visible
   * focus ring; the exact order of the stops (top bar, then the content in reading order); that
   * Space toggles a scope and Enter follows links and submits; and that the copy button next to
   * the header field copies it.
   */
  test('keyboard only: sign in, reach the MCP dialog, authorize with a scope toggled by Space, and copy the header', async () => {
    const account = await server.createAccount();
    const { context, page } = await open();
    const keys = page.keyboard;
    try {
      // Sign-in: the email field has the focus; the skip link and the brand come before it.
      await page.goto(`${server.baseUrl}/signin`);
      assert.equal((await focusedOnArrival(page)).name, 'input#email');
      assert.equal((await tab(page, true)).name, 'a "Docs"');
      assert.equal((await tab(page, true)).name, 'a "Outreach"');
      const skip = await tab(page, true);
      assert.deepEqual(skip, { name: 'a "Skip to content"', visible: true, ring: true });
      assert.deepEqual(await tabTo(page, 'input#email'), ['a "Outreach"', 'a "Docs"', 'input#email']);
      await keys.type(account.email);
      assert.deepEqual(await tabTo(page, 'input#password'), ['input#password']);
      await keys.type(TEST_PASSWORD);
      assert.deepEqual(await tabTo(page, 'button "Sign in"'), ['button "Sign in"']);
      await andWaitForPage(page, () => keys.press('Enter'));
      assert.equal(path(page), '/app');

      // Dashboard: the skip link leads into the content, whose first stop is the way to the MCP dialog.
      assert.deepEqual(await tabTo(page, 'a "Skip to content"'), ['a "Skip to content"']);
      await keys.press('Enter');
      assert.equal((await focused(page)).name, 'main#main');
      assert.deepEqual(await tabTo(page, 'a "Open the MCP dialog"'), ['a "Open the MCP dialog"']);
      await andWaitForPage(page, () => keys.press('Enter'));
      assert.equal(path(page), '/app/mcp');

      // Dialog without a token: the top bar, "Close", the URL and its copy button, the folded
      // sign-in configurations, then "Authorize MCP".
      assert.deepEqual(await tabTo(page, 'a "Authorize MCP"'), [
        ...TOP_BAR,
        'a "Close"',
        'input#mcp-url',
        'button "Copy" [data-copy=mcp-url]',
        ...SIGN_IN_SUMMARIES,
        'a "Authorize MCP"',
      ]);
      await andWaitForPage(page, () => keys.press('Enter'));
      assert.equal(path(page), '/app/mcp/authorize');

      // Consent: the scopes in order; Space unchecks mcp:write; Shift+Tab goes back one.
      assert.deepEqual(await tabTo(page, 'input#scope-mcp-write'), [...TOP_BAR, 'input#scope-mcp-read', 'input#scope-mcp-write']);
      await keys.press('Space');
      assert.equal(await scopeBox(page, 'mcp:write').isChecked(), false);
      assert.deepEqual(await tabTo(page, 'button "Authorize"'), ['input#scope-profile', 'input#scope-service_account_id', 'button "Authorize"']);
      assert.equal((await tab(page)).name, 'a "Cancel"');
      assert.equal((await tab(page, true)).name, 'button "Authorize"');
      await andWaitForPage(page, () => keys.press('Enter'));
      assert.equal(path(page), '/app/mcp');
      assert.equal((await page.locator('p.hint', { hasText: 'Scopes:' }).textContent())?.trim(), 'Scopes: mcp:read profile service_account_id');

      // Dialog with a token: the header field, then its copy button, which Enter presses.
      assert.deepEqual(await tabTo(page, 'input#mcp-header'), [
        ...TOP_BAR,
        'a "Close"',
        'input#mcp-url',
        'button "Copy" [data-copy=mcp-url]',
        ...SIGN_IN_SUMMARIES,
        'input#mcp-header',
      ]);
      assert.deepEqual(await tabTo(page, 'button "Copy" [data-copy=mcp-header]'), ['button "Copy" [data-copy=mcp-header]']);
      await keys.press('Enter');
      await page.locator('#mcp-header-status', { hasText: 'Copied.' }).waitFor();
      const header = await page.locator('#mcp-header').inputValue();
      assert.match(header, /^Bearer /);
      assert.equal(await clipboardText(page), header);
      assert.equal((await focused(page)).name, 'button "Copy" [data-copy=mcp-header]', 'the focus stays on the button');
    } finally {
      await context.close();
    }
  });

  test('screenshots at 390 and 1280 px wide; at both widths no page scrolls sideways', async () => {
    for (const [size, viewport] of Object.entries(VIEWPORTS)) {
      const account = await server.createAccount({ profiles: 2 });
      const { context, page } = await open(viewport);
      const shoot = async (name: string) => {
        await assertNoHorizontalOverflow(page);
        await screenshot(page, `${name}-${size}`);
      };
      try {
        await page.goto(`${server.baseUrl}/`);
        await shoot('landing');
        await page.goto(`${server.baseUrl}/signin`);
        await shoot('signin');
        await submitSignIn(page, account.email, TEST_PASSWORD);
        const { header } = await authorize(page, [], () => shoot('consent'));
        for (const summary of await page.locator('summary').all()) await summary.click();
        await shoot('mcp-dialog');

        // Something for the dashboard's tables to show: a campaign and two tool calls.
        await postMcp(server.mcpUrl, callTool('create_campaign', { service_profile_id: account.profileIds[0], name: 'Spring founders outreach' }), {
          authorization: header,
        });
        await postMcp(server.mcpUrl, callTool('profiles'), { authorization: header });
        await activityWritten(server, account.accountId, 2);
        await page.goto(`${server.baseUrl}/app`);
        await shoot('dashboard');
        await page.goto(`${server.baseUrl}/app/activity`);
        await shoot('activity');
        await page.goto(`${server.baseUrl}/app/mcp/remove`);
        await shoot('mcp-remove-confirm');
        await page.goto(`${server.baseUrl}/nowhere`);
        await shoot('not-found-signed-in');
      } finally {
        await context.close();
      }
    }
  });

  // Chromium asks every site for /favicon.ico unless a page names its icon; that would be a 404 and
  // a console error on the first page a browser opens.
  test('the pages name an icon, so the browser does not ask for /favicon.ico', async () => {
    const { context, page } = await open();
    try {
      await page.goto(`${server.baseUrl}/signin`);
      const named = await page.locator('link[rel~="icon"]').count();
      const fallback = await fetch(`${server.baseUrl}/favicon.ico`);
      assert.ok(named > 0 || fallback.ok, `no <link rel="icon"> and /favicon.ico answers ${fallback.status}`);
    } finally {
      await context.close();
    }
  });

  // Last: it also answers for every page the tests above opened.
  test('no page logs a console error, throws, breaks the Content-Security-Policy or fails to load a file', async () => {
    const { context, page, account } = await signedIn();
    try {
      const { header } = await authorize(page);
      for (const summary of await page.locator('summary').all()) await summary.click();
      for (const button of await page.locator('[data-copy]').all()) await button.click();
      const created = await postMcp(server.mcpUrl, callTool('create_campaign', { service_profile_id: account.profileIds[0], name: 'Console check' }), {
        authorization: header,
      });
      await activityWritten(server, account.accountId, 1);
      const campaign = `/app/campaigns/${created.json.result.structuredContent.campaign.id}`;
      for (const to of ['/app', '/app/activity', campaign, '/app/campaigns/cmp_unknown', '/nowhere', '/app/mcp']) await page.goto(`${server.baseUrl}${to}`);
      await removeEverything(page, ['MCP dialog']);
      await andWaitForPage(page, () => page.getByRole('button', { name: 'Sign out' }).click());
      assert.equal(path(page), '/signin');
      await submitSignIn(page, account.email, 'wrong-password');
      log.assertNone();
    } finally {
      await context.close();
    }
  });
});
