/**
 * An MCP App in Chromium, inside the test host built with ext-apps' host side (helpers/app-host.ts):
 * the protocol fixture's notes_board, which list_notes opens. The app gets the tool's result from the
 * host and shows the notes; its button calls clear_notes (a tool for the app only) through the host,
 * which forwards it to the server; the server's notes are then gone. At 390 px, under the CSP the
 * host builds from the app's `_meta.ui`, with no console error, uncaught exception or CSP violation.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { chromiumSkip, launchChromium, openContext, ProblemLog, screenshot, VIEWPORTS } from '../helpers/browser.ts';
import { openAppHost, type AppHost } from '../helpers/app-host.ts';
import { startProtocolFixture, type ProtocolFixture } from '../helpers/protocol-fixture.ts';
import { postMcp } from '../helpers/mcp-post.ts';
import { assertToolResult, bearer, callTool } from '../helpers/mcp-calls.ts';

describe('an MCP App in the ext-apps test host, in Chromium', { skip: chromiumSkip(), timeout: 120_000 }, () => {
  let server: ProtocolFixture;
  let browser: Browser;
  const log = new ProblemLog();

  before(async () => {
    [server, browser] = await Promise.all([startProtocolFixture(), launchChromium()]);
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  for (const protocolVersion of ['2026-07-28', '2025-11-25'] as const) {
    test(`at ${protocolVersion}: the app shows the tool's result, and its button calls the app-only tool through the host`, async () => {
      const { token } = await server.newCaller();
      for (const title of ['Buy milk', 'Call Ada']) assertToolResult(await postMcp(server.mcpUrl, callTool('add_note', { title }), bearer(token)));
      const context = await openContext(browser, log, { viewport: VIEWPORTS.narrow });
      const page = await context.newPage();
      let host: AppHost | undefined;
      try {
        host = await openAppHost({ page, serverUrl: server.mcpUrl, token, tool: 'list_notes', protocolVersion });
        const { frame } = host;
        await frame.getByRole('status').filter({ hasText: '2 notes' }).waitFor();
        assert.deepEqual(await frame.getByRole('listitem').allTextContents(), ['Buy milk', 'Call Ada']);
        await screenshot(page, `app-host-notes-board-${protocolVersion}`);

        await frame.getByRole('button', { name: 'Clear all notes' }).click();
        await frame.getByRole('status').filter({ hasText: 'Cleared 2 notes' }).waitFor();
        const forwarded = await host.waitFor((e) => e.direction === 'host->server' && e.method === 'tools/call' && (e.params as any)?.name === 'clear_notes');
        assert.equal(forwarded.error, undefined);
        assert.deepEqual((forwarded.result as any).structuredContent, { cleared: 2 });
        assert.deepEqual(assertToolResult(await postMcp(server.mcpUrl, callTool('list_notes'), bearer(token))), { notes: [] }, 'the server cleared them');
        assert.deepEqual(
          host.hostLog.map((e) => `${e.direction} ${e.method}`),
          [
            'host->server tools/call',
            'host bridge connected',
            'app->host ui/notifications/initialized',
            'host->app ui/notifications/tool-input',
            'host->app ui/notifications/tool-result',
            'app->host tools/call',
            'host->server tools/call',
          ],
        );
        // zod, inside ext-apps' App, tries eval once to see whether it may (and then does without):
        // the sandbox's CSP refuses it, as SEP-1865's CSP must. Nothing else may go wrong.
        const probe = (p: { kind: string; text: string }) => p.kind === 'csp' && /^script-src blocked eval /.test(p.text);
        assert.deepEqual(
          log.problems().filter((p) => !probe(p)),
          [],
          'console errors, uncaught exceptions, CSP violations or failed files',
        );
      } finally {
        await host?.close();
        await context.close();
      }
    });
  }
});
