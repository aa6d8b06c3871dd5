/**
 * /docs: how to connect this server (its real URL, the client configurations) followed by the
 * reference generated from tools.yaml, the same content as docs/reference.md. Public and static:
 * it works without JavaScript (the copy buttons are the only enhancement).
 */
import type { ClientConfig } from 'mcpyard';
import { html, raw } from '../../html/html.ts';
import { configBlock } from './client-config.ts';
import { page, type Viewer } from '../../html/layout.ts';

export interface DocsView {
  appName: string;
  title: string;
  mcpUrl: string;
  configs: readonly ClientConfig[];
  /** Configurations with the URL alone, for clients that sign in by OAuth. */
  signInConfigs: readonly ClientConfig[];
  /** The generated reference, already escaped HTML. */
  referenceHtml: string;
  viewer?: Viewer;
  csrf?: string;
}

export function docsPage(view: DocsView): string {
  const body = html`<article class="docs">
    <h1>${view.title}</h1>
    <nav class="docs-toc" aria-label="On this page">
      <a href="#connecting">Connecting</a> · <a href="#tools">Tools</a> · <a href="#types">Types</a> · <a href="#resources">Resources</a> ·
      <a href="#prompts">Prompts</a> · <a href="#scopes">Scopes</a> · <a href="#errors">Errors</a>
    </nav>
    <h2 id="connecting">Connecting</h2>
    <p>
      The endpoint is <code>${view.mcpUrl}</code> (POST, JSON-RPC 2.0 over MCP Streamable HTTP). Every request carries
      <code>Authorization: Bearer &lt;ACCESS_TOKEN&gt;</code>: a one-hour token from the <a href="/app/mcp">MCP dialog</a> (sign in first), or from a client
      that signs in by OAuth (discovery at <code>/.well-known/oauth-protected-resource</code>).
    </p>
    <p>Clients that sign in by themselves need only the URL (they ask you to sign in and approve in the browser):</p>
    ${view.signInConfigs.map(configBlock)}
    <p>Clients that cannot sign in take the header (the MCP dialog shows these with your token filled in):</p>
    ${view.configs.map(configBlock)} ${raw(view.referenceHtml)}
  </article>`;
  return page({ title: 'Docs', body, appName: view.appName, section: 'docs', ...(view.viewer && { viewer: view.viewer, csrf: view.csrf }) });
}
