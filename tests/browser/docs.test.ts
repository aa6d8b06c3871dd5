/**
 * /docs in Chromium against the real server, as a newcomer reads it: without JavaScript, signed
 * out, at a phone's and a laptop's width. It shows this server's own MCP URL in every client
 * configuration, and the in-page links of the generated reference lead to their sections.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { assertNoHorizontalOverflow, chromiumSkip, launchChromium, openContext, ProblemLog, screenshot, VIEWPORTS } from '../helpers/browser.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { toolsList } from '../../generated/tools-list.gen.ts';

describe('/docs in Chromium', { skip: chromiumSkip(), timeout: 90_000 }, () => {
  let server: TestServer;
  let browser: Browser;
  const log = new ProblemLog();

  before(async () => {
    [server, browser] = await Promise.all([startTestServer(), launchChromium()]);
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  for (const [name, viewport] of Object.entries(VIEWPORTS))
    test(`readable without JavaScript at the ${name} width, signed out`, async () => {
      const context = await openContext(browser, log, { viewport, javaScriptEnabled: false });
      const page = await context.newPage();
      const res = await page.goto(`${server.baseUrl}/docs`);
      assert.equal(res?.status(), 200);
      await assertNoHorizontalOverflow(page);

      // The configurations carry this instance's URL (folded, but readable: details open without JavaScript).
      assert.match(await page.locator('main').innerText(), new RegExp(`The endpoint is ${server.mcpUrl.replace(/[.]/g, '\\.')}`));
      await page.getByText('Claude Code (.mcp.json)').click();
      const config = JSON.parse(await page.locator('#config-claude-code').inputValue()) as { mcpServers: Record<string, { url: string }> };
      assert.equal(Object.values(config.mcpServers)[0]!.url, server.mcpUrl);

      // Every tool has its section, linked from the list at the top.
      for (const tool of toolsList) assert.equal(await page.locator(`h3#tool-${tool.name}`).count(), 1, tool.name);
      await page.locator('a[href="#tool-add_leads"]').first().click();
      assert.equal(new URL(page.url()).hash, '#tool-add_leads');
      // A field whose shape is a shared type links to the type's section.
      await page.locator('#tool-add_leads ~ .table-scroll a[href="#type-leadinput"]').first().click();
      assert.equal(new URL(page.url()).hash, '#type-leadinput');
      assert.ok(await page.locator('h3#type-leadinput').isVisible());

      // Signed out, the top bar offers the docs and sign-in.
      assert.equal(await page.locator('nav.topnav a[aria-current="page"]').innerText(), 'Docs');
      // The reference is many screens long: the top of the page (nav, endpoint, tool list) is what to look at.
      await page.evaluate('window.scrollTo(0, 0)');
      await screenshot(page, `docs-${name}`, { fullPage: false });
      await context.close();
    });

  test('the pages were free of console errors, CSP violations and missing files', () => {
    assert.deepEqual(log.problems(), []);
  });
});
