/**
 * The framework's public surface: what apps, examples and generated code may import. Everything
 * else under runtime/ is internal (an eslint rule keeps app/ and examples/ out of it).
 */

// Serving MCP over HTTP.
export { mcpHttp, resourceMetadataUrl, type McpHttpOptions } from './http.ts';
export type { WindowLimit } from './request-limits.ts';
export { resourceMetadata, type ResourceMetadataOptions } from './resource-metadata.ts';
export { freePort } from '../core/free-port.ts';

// Authentication.
// (mcpHttp answers refusals: it owns the error catalog and the WWW-Authenticate challenges.)
export { anonymousPrincipal, createJwtAuthenticator, TokenRefusedError, TokenRejectedError, type Authenticator, type JwtAuthOptions } from './auth.ts';

// Errors: the catalog, raising its errors, and the runtime's own entries.
export { CatalogError, FrameworkConfigError, protocolError, type ErrorParamValues, type ToolErrors } from './errors.ts';
export { renderTemplate } from '../core/templates.ts';
export { frameworkErrors, type FrameworkError, type FrameworkErrorCode, type FrameworkErrorParams, type ParamType } from '../core/framework-errors.ts';

// What the generator hands the runtime.
export type {
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

// The tasks extension: where tasks are kept.
export { memoryTaskStore, TASKS_EXTENSION, type TaskRecord, type TaskStatus, type TaskStore } from './tasks.ts';

// Asking the client for input during a call.
export { InputRequestFailedError, InputUnavailableError } from './input-requests.ts';

// Resource URI templates (RFC 6570 simple expressions).
export { parseUriTemplate, uriTemplateProblem, type UriTemplate } from '../core/uri-template.ts';

// Protocol versions.
export { SUPPORTED_VERSIONS, STATELESS_VERSION, HANDSHAKE_VERSIONS } from './versions.ts';

// Client configurations for a server (an MCP dialog, a CLI, docs).
export { clientConfigs, signInConfigs, type ClientConfig, type ClientConfigInput, type SignInConfigInput } from '../core/client-configs.ts';
