/** The framework's public surface, for apps built on it. */
export { mcpHttp, resourceMetadataUrl, type McpHttpOptions } from './http.ts';
export { resourceMetadata, type ResourceMetadataOptions } from './resource-metadata.ts';
export { createJwtAuthenticator, Challenges, TokenRejectedError, type Authenticator, type JwtAuthOptions } from './auth.ts';
export { CatalogError, ErrorFactory, FrameworkConfigError, renderTemplate } from './errors.ts';
export type { ScopeDefinition, ServerDefinition, ToolDefinition } from './definition.ts';
export type { ContentResult, HandlerMap, Principal, Services, ToolContext, ToolHandler } from './handler.ts';
export { SUPPORTED_VERSIONS, STATELESS_VERSION, HANDSHAKE_VERSIONS } from './versions.ts';
export type { ToolCallEvent, ToolCallObserver } from './tool-runner.ts';
