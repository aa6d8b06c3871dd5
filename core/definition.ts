/**
 * What the generator hands the runtime: the server's declaration in executable form.
 * The runtime never imports generated code; the app passes a ServerDefinition in at start.
 */
import type { JwtSettings } from './jwt-settings.ts';

export type ErrorSurface = 'auth' | 'http' | 'protocol' | 'tool';

export interface ErrorDefinition {
  readonly message: string;
  readonly surface: ErrorSurface;
  /** HTTP status for auth/http errors (and protocol errors answered with a non-200 status). */
  readonly status?: number;
  /** JSON-RPC error code, for errors sent as JSON-RPC error objects. */
  readonly rpcCode?: number;
  readonly params: readonly string[];
}

export type ErrorCatalog = Readonly<Record<string, ErrorDefinition>>;

/**
 * Where an answer names the catalog error it carries, `{ code, params }`, so that a client acts on
 * the code rather than the message's text: the `_meta` key of a tool's isError result, and the
 * keys of a resource's or prompt's -32602 `error.data`.
 */
export const CATALOG_ERROR_META = 'catalogError';

/** What CATALOG_ERROR_META holds. */
export interface CatalogErrorMeta {
  code: string;
  params: Readonly<Record<string, string | number>>;
}

export interface ValidationErrorObject {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}

/** An ajv standalone validator. */
export type Validator = ((data: unknown) => boolean) & { errors?: ValidationErrorObject[] | null };

export interface ToolDefinition {
  readonly name: string;
  readonly scopes: readonly string[];
  readonly errors: readonly string[];
  readonly validateArguments: Validator;
  /** Present when the tool declares an output schema: its handler returns structured content. */
  readonly validateResult?: Validator;
  /**
   * Arguments marked `x-mcp-header` (SEP-2243): at 2026-07-28 the client also sends each one's
   * value as the header `Mcp-Param-<header>`, which must match the body.
   */
  readonly headerParams?: readonly { readonly header: string; readonly path: readonly string[] }[];
  /**
   * Runs as a task (tasks extension, 2026-07-28) for a client that declares the extension:
   * `optional` runs in the call for other clients, `required` refuses them (-32021).
   */
  readonly task?: 'optional' | 'required';
  /**
   * Client capabilities the tool cannot run without: at 2026-07-28 a request that does not
   * declare them is refused with -32021 (400) before the handler runs (SEP-2575).
   */
  readonly clientCapabilities?: readonly string[];
}

export interface ScopeDefinition {
  readonly name: string;
  readonly description: string;
  readonly default: boolean;
}

/** One entry of the tools/list result, precomputed by the generator. */
export interface ToolListing {
  readonly name: string;
  readonly title?: string;
  readonly description: string;
  readonly inputSchema: object;
  readonly outputSchema?: object;
  readonly annotations?: object;
  /** MCP Apps (core/apps.ts): `ui` links the tool to its app and says who may call it. */
  readonly _meta?: object;
}

/** How long a client may reuse a result of the stateless revision, and whether it is the same for every caller. */
export interface CacheHint {
  readonly ttlMs: number;
  readonly scope: 'public' | 'private';
}

/** A resource: one fixed URI, or a URI template whose variables the handler receives. */
export interface ResourceDefinition {
  readonly name: string;
  /** Exactly one of uri and uriTemplate. */
  readonly uri?: string;
  readonly uriTemplate?: string;
  readonly mimeType?: string;
  readonly scopes: readonly string[];
  readonly errors: readonly string[];
  /** Template variables the handler completes (its `complete` has a function for each). */
  readonly completable: readonly string[];
  /** The cache hint of its resources/read results (stateless revision). */
  readonly cache: CacheHint;
}

export interface PromptArgumentDefinition {
  readonly name: string;
  readonly required: boolean;
}

export interface PromptDefinition {
  readonly name: string;
  readonly arguments: readonly PromptArgumentDefinition[];
  readonly scopes: readonly string[];
  readonly errors: readonly string[];
  /** Arguments the handler completes. */
  readonly completable: readonly string[];
}

/** One entry of the resources/list result. */
export interface ResourceListing {
  readonly uri: string;
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly mimeType?: string;
  /** An app's `ui` (its CSP, permissions...), for hosts to review before they read it. */
  readonly _meta?: object;
}

/** One entry of the resources/templates/list result. */
export interface ResourceTemplateListing {
  readonly uriTemplate: string;
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly mimeType?: string;
}

/** One entry of the prompts/list result. */
export interface PromptListing {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly arguments?: readonly { readonly name: string; readonly description?: string; readonly required?: boolean }[];
}

/**
 * How requests authenticate: `bearer`, a token the server's own authenticator checks (given to
 * mcpHttp); `none`, no token (local fixtures on loopback); `{ jwt }`, bearer JWTs from the
 * server's own authorization server, which mcpHttp checks itself.
 */
export type AuthDefinition = 'bearer' | 'none' | { readonly jwt: JwtSettings };

export interface ServerDefinition {
  readonly info: { readonly name: string; readonly version: string; readonly title?: string };
  readonly instructions?: string;
  readonly auth: AuthDefinition;
  readonly scopes: readonly ScopeDefinition[];
  readonly errors: ErrorCatalog;
  readonly tools: Readonly<Record<string, ToolDefinition>>;
  readonly toolsList: readonly ToolListing[];
  /** Resources and prompts, when the server declares any. */
  readonly resources?: Readonly<Record<string, ResourceDefinition>>;
  readonly resourcesList?: readonly ResourceListing[];
  readonly resourceTemplatesList?: readonly ResourceTemplateListing[];
  readonly prompts?: Readonly<Record<string, PromptDefinition>>;
  readonly promptsList?: readonly PromptListing[];
  /** MCP Apps: the `ui://` HTML documents hosts render for the tools that link them, by name. */
  readonly apps?: Readonly<Record<string, AppDefinition>>;
}

/**
 * An MCP App (SEP-1865, the `io.modelcontextprotocol/ui` extension): a `ui://` resource whose
 * content is one HTML document, built by the generator (its scripts bundled in), served as it is.
 */
export interface AppDefinition {
  readonly name: string;
  /** A `ui://` URI. */
  readonly uri: string;
  readonly title?: string;
  readonly description: string;
  /** The whole HTML document. */
  readonly html: string;
  /** The resource's `_meta.ui`: what the host's sandbox must allow (CSP, permissions), its domain, its border. */
  readonly ui: UiResourceMeta;
}

/** The `_meta.ui` of an app's resource (SEP-1865's UIResourceMeta). */
export interface UiResourceMeta {
  readonly csp?: {
    readonly connectDomains?: readonly string[];
    readonly resourceDomains?: readonly string[];
    readonly frameDomains?: readonly string[];
    readonly baseUriDomains?: readonly string[];
  };
  readonly permissions?: { readonly camera?: object; readonly microphone?: object; readonly geolocation?: object; readonly clipboardWrite?: object };
  readonly domain?: string;
  readonly prefersBorder?: boolean;
}

/** Who may call a tool (SEP-1865): the model, the app (through the host), or both (the default). */
export type UiVisibility = 'model' | 'app';

/** The `_meta.ui` of a tool (SEP-1865's McpUiToolMeta). */
export interface UiToolMeta {
  /** The app the host renders the tool's result in. */
  readonly resourceUri?: string;
  readonly visibility?: readonly UiVisibility[];
}
