/**
 * Ready-to-paste client configurations (for an MCP dialog, a CLI, the docs), generated from the server's name, the
 * MCP URL and, for clients that cannot sign in, the header value. Each is what that client's documentation asks for.
 */

export interface ClientConfig {
  /** Stable id, used for element ids and tests. */
  id: string;
  title: string;
  /** Where to put it. */
  where: string;
  text: string;
}

export interface SignInConfigInput {
  /** The server's name (tools.yaml `server.name`), the key clients list it under. */
  serverName: string;
  /** `{PUBLIC_URL}/mcp` */
  url: string;
}

export interface ClientConfigInput extends SignInConfigInput {
  /** The whole header value: `Bearer <token>`. */
  authorization: string;
}

const json = (value: unknown) => JSON.stringify(value, null, 2);

/** A shell-safe single-quoted word. */
const shellQuote = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;

/**
 * Configurations with the URL alone, for clients that sign in by themselves (OAuth: discovery from
 * the server's 401, then the user signs in and approves in a browser). Each client gets its own
 * authorization, which lasts (its refresh token renews it) and is removed on its own.
 */
export function signInConfigs({ serverName, url }: SignInConfigInput): ClientConfig[] {
  return [
    {
      id: 'signin-connector',
      title: 'Claude or ChatGPT (custom connector)',
      where:
        'Claude: Settings → Connectors → Add custom connector. ChatGPT: Settings → Apps & Connectors → Create (developer mode). Paste the URL; they open a page here to sign in and approve.',
      text: url,
    },
    {
      id: 'signin-claude-cli',
      title: 'Claude Code (command)',
      where: 'Run it in a terminal, then type /mcp in Claude Code to sign in.',
      text: `claude mcp add --transport http ${shellQuote(serverName)} ${shellQuote(url)}`,
    },
    {
      id: 'signin-cursor',
      title: 'Cursor (mcp.json)',
      where: '~/.cursor/mcp.json, or .cursor/mcp.json in your project. Cursor asks you to sign in when it first connects.',
      text: json({ mcpServers: { [serverName]: { url } } }),
    },
    {
      id: 'signin-vscode',
      title: 'VS Code (.vscode/mcp.json)',
      where: '.vscode/mcp.json in your workspace. VS Code asks you to sign in when it first connects.',
      text: json({ servers: { [serverName]: { type: 'http', url } } }),
    },
  ];
}

/** Configurations that carry the header value: for clients that cannot sign in by themselves. */
export function clientConfigs({ serverName, url, authorization }: ClientConfigInput): ClientConfig[] {
  const headers = { Authorization: authorization };
  return [
    {
      id: 'claude-code',
      title: 'Claude Code (.mcp.json)',
      where: 'A file named .mcp.json at the root of your project.',
      text: json({ mcpServers: { [serverName]: { type: 'http', url, headers } } }),
    },
    {
      id: 'claude-cli',
      title: 'Claude Code (command)',
      where: 'Run it in a terminal.',
      text: `claude mcp add --transport http ${shellQuote(serverName)} ${shellQuote(url)} --header ${shellQuote(`Authorization: ${authorization}`)}`,
    },
    {
      id: 'cursor',
      title: 'Cursor (mcp.json)',
      where: '~/.cursor/mcp.json, or .cursor/mcp.json in your project.',
      text: json({ mcpServers: { [serverName]: { url, headers } } }),
    },
    {
      id: 'vscode',
      title: 'VS Code (.vscode/mcp.json)',
      where: '.vscode/mcp.json in your workspace.',
      text: json({ servers: { [serverName]: { type: 'http', url, headers } } }),
    },
    {
      id: 'generic',
      title: 'Any other client',
      where: 'The server entry most clients take.',
      text: json({ type: 'http', url, headers }),
    },
  ];
}
