/**
 * A minimal MCP Apps host for Chromium tests, built with ext-apps' host side (AppBridge and
 * PostMessageTransport, in app-host-page.ts, bundled with esbuild when first used):
 *
 *   const host = await openAppHost({ page, serverUrl, token, tool: 'list_notes', args: {} });
 *   await host.frame.getByRole('button', { name: 'Clear all notes' }).click();
 *   await host.waitFor((e) => e.method === 'tools/call' && e.direction === 'host->server');
 *   await host.close();
 *
 * It does what a host does: connects to the server with the official MCP client (declaring the
 * `io.modelcontextprotocol/ui` extension), finds the tool's app in tools/list (`_meta.ui.resourceUri`,
 * or the deprecated flat key), reads it (resources/read), calls the tool, and renders the app in a
 * sandboxed iframe of its own origin, served with the CSP SEP-1865 builds from the app's
 * `_meta.ui.csp` (no undeclared origin is reachable). Once the app has initialized it gets the
 * tool's input and result. The app's requests for the server go through the host to that client:
 * tools/call (refused, as the spec says, for a tool whose visibility leaves out "app"),
 * resources/read and resources/list. A URL-mode elicitation from the server (`elicitation/create`,
 * e.g. approve_campaign's approval page) is logged with its URL and accepted, as a host does once
 * its person consents to open the page; the test then opens the URL itself. Everything is written
 * to `hostLog`, in order.
 */
import { createServer, type Server } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport, type CallToolResult, type Tool } from '@modelcontextprotocol/client';
import type { FrameLocator, Page } from 'playwright-core';
import { LEGACY_RESOURCE_URI_KEY, UI_EXTENSION, UI_MIME_TYPE, type UiResourceMeta } from '../../runtime/index.ts';
import type { HostPageConfig } from './app-host-page.ts';

export interface AppHostOptions {
  /** A page of a context the test made (openContext in browser.ts watches it for problems). */
  page: Page;
  /** The server's MCP endpoint, e.g. `http://127.0.0.1:3000/mcp`. */
  serverUrl: string;
  /** A bearer token for the server (none for an `auth: none` server). */
  token?: string;
  /** The tool whose result the app shows: it must name an app in its `_meta.ui`. */
  tool: string;
  args?: Record<string, unknown>;
  /** Default 2026-07-28; 2025-11-25 connects with the initialize handshake. */
  protocolVersion?: '2025-11-25' | '2026-07-28';
}

/** One step the host saw: the app's requests and notifications, what it sent the app, what it asked the server. */
export interface HostLogEntry {
  direction: 'app->host' | 'host->app' | 'host->server' | 'server->host' | 'host';
  method: string;
  params?: unknown;
  /** For host->server: the server's answer, or why the host refused or the call failed. */
  result?: unknown;
  error?: string;
}

export interface AppHost {
  /** The app's iframe, for locators: `host.frame.getByRole('button', { name: 'Approve' })`. */
  frame: FrameLocator;
  /** Every step so far, in order (it grows while the app runs). */
  hostLog: HostLogEntry[];
  /** The tools a host would offer its model: those whose `_meta.ui.visibility` includes "model" (or says nothing). */
  modelTools: string[];
  /** What the tool call answered (what the app was given). */
  toolResult: CallToolResult;
  /** The app as read: its URI, HTML and `_meta.ui`. */
  app: { uri: string; html: string; ui: UiResourceMeta };
  /** The first log entry (from now or earlier) that `match` accepts; fails after `timeoutMs` (default 10 s). */
  waitFor(match: (entry: HostLogEntry) => boolean, timeoutMs?: number): Promise<HostLogEntry>;
  /** Closes the MCP connection and the host's servers (not the page). */
  close(): Promise<void>;
}

const HERE = path.dirname(fileURLToPath(import.meta.url));
let hostScript: Promise<string> | undefined;

/** The host page's script, bundled once per process (ext-apps' host side and what it imports). */
function bundledHostScript(): Promise<string> {
  hostScript ??= import('esbuild').then(async ({ build }) => {
    const result = await build({
      entryPoints: [path.join(HERE, 'app-host-page.ts')],
      bundle: true,
      write: false,
      format: 'esm',
      platform: 'browser',
      target: 'es2022',
      logLevel: 'silent',
    });
    return result.outputFiles[0]!.text.replace(/<\/(script)/gi, '<\\/$1');
  });
  return hostScript;
}

/** The CSP SEP-1865 builds from an app's `_meta.ui.csp` ("Content Security Policy Enforcement"). */
export function appCsp(csp: UiResourceMeta['csp'] = {}): string {
  const list = (domains: readonly string[] | undefined) => (domains?.length ? ` ${domains.join(' ')}` : '');
  const resources = list(csp.resourceDomains);
  return [
    "default-src 'none'",
    `script-src 'self' 'unsafe-inline'${resources}`,
    `style-src 'self' 'unsafe-inline'${resources}`,
    `connect-src 'self'${list(csp.connectDomains)}`,
    `img-src 'self' data:${resources}`,
    `font-src 'self'${resources}`,
    `media-src 'self' data:${resources}`,
    `frame-src ${csp.frameDomains?.length ? csp.frameDomains.join(' ') : "'none'"}`,
    "object-src 'none'",
    `base-uri ${csp.baseUriDomains?.length ? csp.baseUriDomains.join(' ') : "'self'"}`,
  ].join('; ');
}

/** An HTTP server on a free loopback port answering every GET with one document. */
async function serveOne(body: () => string, headers: Record<string, string>): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    if (req.method !== 'GET') return void res.writeHead(405).end();
    // Nothing to show, and no 404 for the browser to log.
    if (req.url === '/favicon.ico') return void res.writeHead(204).end();
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', ...headers }).end(body());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { server, url: `http://127.0.0.1:${port}/` };
}

const escapeHtml = (text: string) => text.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);

/** Opens the app of `tool` in `page` (one host per page), as a host would; resolves once the app has its tool result. */
export async function openAppHost(options: AppHostOptions): Promise<AppHost> {
  const { page, tool, args = {} } = options;
  const hostLog: HostLogEntry[] = [];
  const waiters = new Set<() => void>();
  const record = (entry: HostLogEntry) => {
    hostLog.push(entry);
    for (const wake of waiters) wake();
  };

  const version = options.protocolVersion ?? '2026-07-28';
  const client = new Client(
    { name: 'mcpyard-test-host', version: '1.0.0' },
    {
      capabilities: { extensions: { [UI_EXTENSION]: { mimeTypes: [UI_MIME_TYPE] } }, elicitation: { url: {} } },
      ...(version === '2026-07-28' && { versionNegotiation: { mode: { pin: version } } }),
    },
  );
  // The person's consent to open a page is the test's: it opens the logged URL itself. Forms: declined.
  client.setRequestHandler('elicitation/create', async (request) => {
    record({ direction: 'server->host', method: 'elicitation/create', params: request.params });
    return { action: (request.params as { mode?: string }).mode === 'url' ? 'accept' : 'decline' };
  });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(options.serverUrl), {
      ...(options.token !== undefined && { requestInit: { headers: { authorization: `Bearer ${options.token}` } } }),
    }),
  );
  const servers: Server[] = [];
  const close = async () => {
    await client.close();
    await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  };
  try {
    const tools = new Map<string, Tool>();
    for (let cursor: string | undefined, first = true; first || cursor; first = false) {
      const page = await client.listTools(cursor === undefined ? {} : { cursor });
      for (const t of page.tools) tools.set(t.name, t);
      cursor = page.nextCursor;
    }
    const meta = tools.get(tool)?._meta as { ui?: { resourceUri?: string }; [LEGACY_RESOURCE_URI_KEY]?: string } | undefined;
    const uri = meta?.ui?.resourceUri ?? meta?.[LEGACY_RESOURCE_URI_KEY];
    if (!tools.has(tool)) throw new Error(`the server has no tool ${tool} (it has ${[...tools.keys()].join(', ')})`);
    if (typeof uri !== 'string' || !uri.startsWith('ui://')) throw new Error(`tool ${tool} names no app: its _meta.ui.resourceUri is ${String(uri)}`);

    const listed = (await client.listResources()).resources.find((r) => r.uri === uri);
    const content = (await client.readResource({ uri })).contents[0] as { mimeType?: string; text?: string; _meta?: { ui?: UiResourceMeta } } | undefined;
    if (content?.mimeType !== UI_MIME_TYPE || typeof content.text !== 'string')
      throw new Error(`${uri} is not an app: resources/read answered ${content?.mimeType ?? 'no content'}, not ${UI_MIME_TYPE} text`);
    // SEP-1865: the content's _meta.ui first, the listing's when the content has none.
    const ui = content._meta?.ui ?? (listed?._meta as { ui?: UiResourceMeta } | undefined)?.ui ?? {};
    const app = { uri, html: content.text, ui };

    const toolResult = (await client.callTool({ name: tool, arguments: args })) as CallToolResult;
    record({ direction: 'host->server', method: 'tools/call', params: { name: tool, arguments: args }, result: toolResult });

    // The app on an origin of its own (another port), with its CSP; the host page on this one.
    const sandbox = await serveOne(() => app.html, { 'content-security-policy': appCsp(ui.csp) });
    servers.push(sandbox.server);
    const config: HostPageConfig = {
      appUrl: sandbox.url,
      title: listed?.title ?? listed?.name ?? uri,
      ...(ui.csp && { csp: ui.csp as Record<string, string[]> }),
      ...(ui.permissions && { permissions: ui.permissions as Record<string, object> }),
      toolName: tool,
      toolInput: args,
      toolResult: toolResult as unknown as Record<string, unknown>,
    };
    const script = await bundledHostScript();
    const hostPage = await serveOne(
      () =>
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">' +
        `<title>MCP Apps test host: ${escapeHtml(config.title)}</title>` +
        '<style>body{margin:0;font-family:system-ui,sans-serif}#app{display:block;width:100%;min-height:120px;border:1px solid #888;box-sizing:border-box}</style></head>' +
        `<body><main id="host"></main><script type="application/json" id="host-config">${JSON.stringify(config).replace(/</g, '\\u003c')}</script>` +
        `<script type="module">${script}</script></body></html>`,
      {},
    );
    servers.push(hostPage.server);

    await page.exposeFunction('__appHostLog', (entry: HostLogEntry) => record(entry));
    await page.exposeFunction('__appHostServer', async (method: string, params: any) => {
      record({ direction: 'app->host', method, params });
      const entry: HostLogEntry = { direction: 'host->server', method, params };
      try {
        if (method === 'tools/call') {
          const visibility = (tools.get(params?.name)?._meta as { ui?: { visibility?: string[] } } | undefined)?.ui?.visibility;
          if (visibility && !visibility.includes('app')) throw new Error(`tool ${params?.name} is not for the app (visibility: ${visibility.join(', ')})`);
          entry.result = await client.callTool(params);
        } else if (method === 'resources/read') entry.result = await client.readResource(params);
        else if (method === 'resources/list') entry.result = await client.listResources(params);
        else throw new Error(`the test host forwards no ${method}`);
        return entry.result;
      } catch (err) {
        entry.error = err instanceof Error ? err.message : String(err);
        throw err;
      } finally {
        record(entry);
      }
    });
    const waitFor = (match: (entry: HostLogEntry) => boolean, timeoutMs = 10_000) =>
      new Promise<HostLogEntry>((resolve, reject) => {
        const check = () => {
          const found = hostLog.find(match);
          if (!found) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(found);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`the host log has no such entry after ${timeoutMs} ms:\n${hostLog.map((e) => `  ${e.direction} ${e.method}`).join('\n')}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });

    await page.goto(hostPage.url);
    await waitFor((e) => e.direction === 'host->app' && e.method === 'ui/notifications/tool-result');
    const visibility = (t: Tool) => (t._meta as { ui?: { visibility?: string[] } } | undefined)?.ui?.visibility;
    const modelTools = [...tools.values()].filter((t) => visibility(t)?.includes('model') ?? true).map((t) => t.name);
    return { frame: page.frameLocator('#app'), hostLog, modelTools, toolResult, app, waitFor, close };
  } catch (err) {
    await close();
    throw err;
  }
}
