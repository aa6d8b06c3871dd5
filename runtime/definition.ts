/**
 * What the generator hands the runtime: the server's declaration in executable form.
 * The runtime never imports generated code; the app passes a ServerDefinition in at start.
 */

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
}

export interface ServerDefinition {
  readonly info: { readonly name: string; readonly version: string; readonly title?: string };
  readonly instructions?: string;
  readonly auth: 'bearer' | 'none';
  readonly scopes: readonly ScopeDefinition[];
  readonly errors: ErrorCatalog;
  readonly tools: Readonly<Record<string, ToolDefinition>>;
  readonly toolsList: readonly ToolListing[];
}
