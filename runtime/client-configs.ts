/**
 * Ready-to-paste client configurations (for an MCP dialog, a CLI, the docs), generated from the server's name, the
 * MCP URL and the header value. Each is what that client's documentation asks for.
 */

export interface ClientConfig {
  /** Stable id, used for element ids and tests. */
  id: string;
  title: string;
  /** Where to put it. */
  where: string;
  text: string;
}

export interface ClientConfigInput {
  /** The server's name (tools.yaml `server.name`), the key clients list it under. */
  serverName: string;
  /** `{PUBLIC_URL}/mcp` */
  url: string;
  /** The whole header value: `Bearer <token>`. */
  authorization: string;
}

const json = (value: unknown) => JSON.stringify(value, null, 2);

/** A shell-safe single-quoted word. */
const shellQuote = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;

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
