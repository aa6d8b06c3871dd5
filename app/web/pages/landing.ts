/**
 * `/` for someone signed out: what the service does, how a client connects, sign in and docs; on
 * a server that runs on this machine, where the demo account's password was printed.
 */
import { html } from '../../html/html.ts';
import { page } from '../../html/layout.ts';

export interface LandingView {
  appName: string;
  mcpUrl: string;
  /** The demo account, on a loopback server that has one. */
  demoEmail?: string;
}

export function landingPage(view: LandingView): string {
  return page({
    appName: view.appName,
    title: 'Outreach run by your AI assistant',
    body: html`<section class="hero">
        <h1>${view.appName}</h1>
        <p class="lede">
          Let your AI assistant (Claude, ChatGPT, Cursor, VS Code or any MCP client) run your outreach for you: it lists your sender profiles, builds campaigns
          of steps, adds leads and sends messages, and you see everything it did.
        </p>
        <div class="actions">
          <a class="button" href="/signin">Sign in</a>
          <a class="button secondary" href="/docs">Read the docs</a>
        </div>
      </section>
      ${
        view.demoEmail &&
        html`<p class="alert info" role="note">
          This server runs on your machine. Try it as <strong>${view.demoEmail}</strong>: the password was printed once, in the terminal where the server first
          started. Lost it? <code>npm run cli -- password reset --email ${view.demoEmail}</code> prints a new one.
        </p>`
      }
      <div class="grid">
        <section class="card">
          <h2>Connect a client</h2>
          <p>Give your client the MCP URL <code class="wrap">${view.mcpUrl}</code>. It opens a page here where you sign in and approve.</p>
        </section>
        <section class="card">
          <h2>You decide what it may do</h2>
          <p>Approve reading only, or writing too. Remove an authorization at any time: its tokens stop working at once.</p>
        </section>
        <section class="card">
          <h2>See what it did</h2>
          <p>Every tool call your assistant makes is listed under Activity, with its outcome; campaigns and conversations are on the dashboard.</p>
        </section>
      </div>`,
  });
}
