/**
 * The client side of the framework: what a generated client (generated/client.gen.ts) extends.
 * It connects the official MCP client (`@modelcontextprotocol/client`) to a server by URL, with a
 * bearer token or an OAuth provider, at 2025-11-25 (the initialize handshake) or 2026-07-28 (the
 * stateless revision), and turns a catalog error into a thrown ToolCallError with its code and
 * its message's parameters (the server names them in the answer: CATALOG_ERROR_META).
 *
 * Its own entry, not part of runtime/index.ts: a server never loads the client package.
 */
import {
  Client,
  ProtocolError,
  StreamableHTTPClientTransport,
  type AuthProvider,
  type CallToolResult,
  type GetPromptResult,
  type OAuthClientProvider,
  type ReadResourceResult,
  type RequestOptions,
} from '@modelcontextprotocol/client';
import { CATALOG_ERROR_META, type CatalogErrorMeta, type UiResourceMeta } from '../core/definition.ts';
import { expandUriTemplate } from '../core/uri-template.ts';

/** The protocol revisions a generated client speaks. */
export type ClientProtocolVersion = '2025-11-25' | '2026-07-28';

export interface ConnectOptions {
  /** The server's MCP endpoint, e.g. `http://127.0.0.1:3000/mcp`. */
  url: string | URL;
  /** A bearer token (sent as `Authorization: Bearer <token>`), or a provider: OAuth (the SDK signs in) or one that hands out tokens. */
  auth?: { token: string } | { provider: OAuthClientProvider | AuthProvider };
  /** Default 2026-07-28 (no handshake); 2025-11-25 connects with the initialize handshake. */
  protocolVersion?: ClientProtocolVersion;
  clientInfo?: { name: string; version: string };
  /** A fetch of the caller's (to record or proxy requests). */
  fetch?: typeof fetch;
}

/** An app (MCP Apps) as its server serves it: the HTML document a host renders, and what the host's sandbox must allow. */
export interface AppResource {
  uri: string;
  /** `text/html;profile=mcp-app`. */
  mimeType: string;
  html: string;
  /** The content's `_meta.ui`: CSP origins, permissions, domain, border. */
  ui: UiResourceMeta;
}

/** Per-call options of the official client (a timeout, an abort signal, progress). */
export type CallOptions = RequestOptions;

/** Parameters of each catalog error's message, by code (a generated `ErrorParams`). */
type ParamsByCode = object;

/**
 * A catalog error a call answered: a tool's isError result, or a resource's or prompt's -32602.
 * `is(code)` narrows it to one code, with that code's parameters typed.
 */
export class ToolCallError<
  Params extends ParamsByCode = Record<string, Record<string, string | number>>,
  Code extends keyof Params = keyof Params,
> extends Error {
  override name = 'ToolCallError';

  constructor(
    /** The tool, resource URI or prompt that answered it. */
    readonly target: string,
    readonly code: Code,
    readonly params: Params[Code],
    message: string,
  ) {
    super(message);
  }

  is<C extends Code>(code: C): this is ToolCallError<Params, C> {
    return this.code === code;
  }
}

/** The catalog error an answer names, if it names one. */
function catalogError(meta: unknown): CatalogErrorMeta | undefined {
  const named = (meta as Record<string, unknown> | undefined)?.[CATALOG_ERROR_META] ?? meta;
  const { code, params } = (named ?? {}) as Partial<CatalogErrorMeta>;
  return typeof code === 'string' && typeof params === 'object' && params !== null ? { code, params } : undefined;
}

/** A resource's or prompt's catalog error as a ToolCallError; anything else as it was thrown. */
function rethrow(err: unknown, target: string): never {
  const named = err instanceof ProtocolError ? catalogError(err.data) : undefined;
  if (named) throw new ToolCallError(target, named.code, named.params, err instanceof Error ? err.message : String(err));
  throw err;
}

/** The base of a generated client: one typed method per tool, resource template and prompt calls these. */
export class McpClient<Params extends ParamsByCode> {
  protected constructor(
    /** The official client underneath, for what the typed methods do not cover (listings, completion). */
    readonly mcp: Client,
  ) {}

  /** The official client, connected as `options` say. */
  protected static async open(options: ConnectOptions): Promise<Client> {
    const version = options.protocolVersion ?? '2026-07-28';
    const client = new Client(
      options.clientInfo ?? { name: 'mcp-typed-client', version: '1.0.0' },
      version === '2026-07-28' ? { versionNegotiation: { mode: { pin: version } } } : {},
    );
    const auth = options.auth;
    const transport = new StreamableHTTPClientTransport(new URL(options.url), {
      ...(auth && 'token' in auth && { requestInit: { headers: { authorization: `Bearer ${auth.token}` } } }),
      ...(auth && 'provider' in auth && { authProvider: auth.provider }),
      ...(options.fetch && { fetch: options.fetch }),
    });
    await client.connect(transport);
    return client;
  }

  /** Calls a tool: its structured result, or for a tool without an output schema the whole result; throws a catalog error as ToolCallError. */
  protected async callTool<Result>(name: string, args: object, options?: RequestOptions): Promise<Result> {
    const result = (await this.mcp.callTool({ name, arguments: args as Record<string, unknown> }, options)) as CallToolResult;
    if (result.isError) {
      const named = catalogError(result._meta);
      const text = result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
      throw named ? new ToolCallError<Params>(name, named.code as keyof Params, named.params as Params[keyof Params], text) : new Error(text);
    }
    return (result.structuredContent ?? result) as Result;
  }

  /** Reads the resource a URI template names with these variables. */
  protected async readTemplate(uriTemplate: string, variables: object, options?: RequestOptions): Promise<ReadResourceResult> {
    const uri = expandUriTemplate(uriTemplate, variables as Readonly<Record<string, string>>);
    return this.mcp.readResource({ uri }, options).catch((err: unknown) => rethrow(err, uri));
  }

  /** Reads an app's document (a `ui://` resource). */
  protected async readApp(uri: string, options?: RequestOptions): Promise<AppResource> {
    const result = await this.mcp.readResource({ uri }, options).catch((err: unknown) => rethrow(err, uri));
    const content = result.contents[0] as { uri: string; mimeType?: string; text?: unknown; _meta?: { ui?: UiResourceMeta } } | undefined;
    if (typeof content?.text !== 'string') throw new Error(`${uri} answered no HTML text; is it an app of this server?`);
    return { uri: content.uri, mimeType: content.mimeType ?? '', html: content.text, ui: content._meta?.ui ?? {} };
  }

  /** Gets a prompt with these arguments. */
  protected async prompt(name: string, args: object, options?: RequestOptions): Promise<GetPromptResult> {
    return this.mcp.getPrompt({ name, arguments: { ...(args as Record<string, string>) } }, options).catch((err: unknown) => rethrow(err, name));
  }

  /** Closes the connection. */
  async close(): Promise<void> {
    await this.mcp.close();
  }
}
