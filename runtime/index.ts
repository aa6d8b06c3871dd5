/**
 * The framework's public surface: what apps, examples and generated code may import. Everything
 * else under runtime/ is internal (an eslint rule keeps app/ and examples/ out of it).
 */

/*
 * Floors of runtime/, bottom to top. The rule: a file imports only files on its own floor or
 * below (type-only imports count too), and outside runtime/ only core/; a new file takes its place
 * in this table. A request climbs down it: HTTP -> transport -> protocol -> handlers, and data
 * flows forward, never back. tests/unit/structure.test.ts reads this table and checks every import.
 *
 *   1 vocabulary  handler jsonrpc errors versions nul origin-guard response-channel resource-metadata
 *   2 caller      auth jwt-config caller era telemetry input-requests
 *   3 failures    classify error-mapping
 *   4 handlers    feature-call tool-runner resource-runner prompt-runner completion tasks app-resources
 *   5 methods     request-state list-pages scope-gate input-rounds task-methods
 *   6 protocol    protocol
 *   7 endpoint    request-limits admission transport
 *   8 server      http stdio
 *   9 start       serve
 *  10 entries     index client
 *
 * 1 the shapes and rules that need nothing else: handler types, JSON-RPC messages, catalog errors;
 * 2 who calls and what they declared: the token (and the issuer of auth: { jwt }), the era, the span, the questions a handler asks;
 * 3 what a thrown error is (classify) and what each kind answers (error-mapping);
 * 4 running the app's tool, resource, prompt and completion handlers, and tasks; serving its MCP Apps' documents;
 * 5 the protocol's parts: list pages, scope checks, question rounds, the tasks methods;
 * 6 dispatch of the MCP methods; 7 the HTTP side of /mcp: admission (Host, Origin, token, limits)
 * and the transport; 8 mcpHttp, which builds the rest, and mcpStdio, which serves the same protocol on stdio; 9 serve, a whole
 * server in one call over either; 10 the public entries, which nothing here imports.
 */

// Serving MCP over HTTP.
export { mcpHttp, resourceMetadataUrl, type McpHttpOptions } from './http.ts';
export type { WindowLimit } from './request-limits.ts';
export { resourceMetadata, type ResourceMetadataOptions } from './resource-metadata.ts';
export { freePort } from '../core/free-port.ts';
export { isLoopback } from '../core/loopback.ts';

// A whole server in one call (HTTP on HOST:PORT, or stdio with --stdio): what `mcpyard start` runs.
export { serve, type ServeOptions, type ServedServer } from './serve.ts';

// Serving MCP over stdio (a local client starts the server as a command).
export { mcpStdio, type McpStdioOptions, type McpStdioServer } from './stdio.ts';
export type { McpServerOptions } from './http.ts';

// Authentication.
// (mcpHttp answers refusals: it owns the error catalog and the WWW-Authenticate challenges.)
export { anonymousPrincipal, createJwtAuthenticator, TokenRefusedError, TokenRejectedError, type Authenticator, type JwtAuthOptions } from './auth.ts';
// auth: { jwt } in tools.yaml: tokens of the server's own authorization server (mcpHttp builds this itself).
export { authenticatorFromDefinition, grantedScopes, jwtSettingsOf, resolveJwtSettings, type AuthEnvironment, type JwksOptions } from './jwt-config.ts';
export { DEFAULT_JWT_ALGORITHMS, JWT_ALGORITHMS, JWT_ENV, type JwtAlgorithm, type JwtSettings } from '../core/jwt-settings.ts';

// Errors: the catalog, raising its errors, and the runtime's own entries.
export { CatalogError, FrameworkConfigError, protocolError, type ErrorParamValues, type ToolErrors } from './errors.ts';
export { renderTemplate } from '../core/templates.ts';
export { frameworkErrors, type FrameworkError, type FrameworkErrorCode, type FrameworkErrorParams, type ParamType } from '../core/framework-errors.ts';

// What the generator hands the runtime.
export type {
  AppDefinition,
  AuthDefinition,
  ErrorCatalog,
  ErrorDefinition,
  ErrorSurface,
  CacheHint,
  PromptArgumentDefinition,
  PromptDefinition,
  PromptListing,
  ResourceDefinition,
  ResourceListing,
  ResourceTemplateListing,
  ScopeDefinition,
  ServerDefinition,
  ToolDefinition,
  ToolListing,
  UiResourceMeta,
  UiToolMeta,
  UiVisibility,
  ValidationErrorObject,
  Validator,
} from '../core/definition.ts';

// What a handler sees.
export type {
  AnyFeatureHandler,
  AskOptions,
  InputAsking,
  Completer,
  Completion,
  CompletionContext,
  ElicitRequest,
  ElicitResult,
  FormElicitRequest,
  UrlElicitRequest,
  SamplingRequest,
  SamplingResult,
  ContentBlock,
  ContentResult,
  HandlerMap,
  LogLevel,
  NoClaims,
  Principal,
  PrincipalClaims,
  PromptContext,
  PromptHandler,
  PromptMessage,
  PromptResult,
  RequestContext,
  ResourceContent,
  ResourceContext,
  ResourceHandler,
  ResourceReadResult,
  ToolContext,
  ToolHandler,
} from './handler.ts';
export type { ToolCallEvent, ToolCallObserver } from './tool-runner.ts';

// MCP Apps (the io.modelcontextprotocol/ui extension): the names a server, a host and a test share.
export { UI_EXTENSION, UI_MIME_TYPE, LEGACY_RESOURCE_URI_KEY } from '../core/apps.ts';

// The tasks extension: where tasks are kept.
export { memoryTaskStore, TASKS_EXTENSION, UNDER_WAY, type TaskRecord, type TaskStatus, type TaskStore } from './tasks.ts';

// Asking the client for input during a call.
export { InputRequestFailedError, InputUnavailableError, type InputAnswer, type InputRelay } from './input-requests.ts';

// Resource URI templates (RFC 6570 simple expressions).
export { parseUriTemplate, uriTemplateProblem, type UriTemplate } from '../core/uri-template.ts';

// Protocol versions.
export { SUPPORTED_VERSIONS, STATELESS_VERSION, HANDSHAKE_VERSIONS } from './versions.ts';

// Client configurations for a server (an MCP dialog, a CLI, docs).
export { clientConfigs, signInConfigs, type ClientConfig, type ClientConfigInput, type SignInConfigInput } from '../core/client-configs.ts';
