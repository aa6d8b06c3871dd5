/** The contract between the runtime and a tool handler. */

/** Who is calling: the verified token's claims. */
export interface Principal {
  /** The user (`sub`). */
  readonly subject: string;
  /** The `service_account_id` claim; absent only on `auth: none` servers. */
  readonly accountId: string;
  readonly scopes: ReadonlySet<string>;
  readonly grantId?: string;
  readonly clientId?: string;
  /** Expiry, seconds since the epoch. */
  readonly expiresAt: number;
}

export type LogLevel = 'debug' | 'info' | 'notice' | 'warning' | 'error' | 'critical' | 'alert' | 'emergency';

/**
 * What a handler gets besides its arguments. `Services` is the application's own (its stores,
 * clock, ...), named in tools.yaml (`codegen.services`) so the generated handler types carry it.
 */
export interface ToolContext<Errors, Services = unknown> {
  readonly tool: string;
  readonly principal: Principal;
  readonly services: Services;
  /** Constructors for the catalog errors this tool declares: `throw ctx.errors.CODE({...})`. */
  readonly errors: Errors;
  /** Aborted when the client cancels or disconnects. */
  readonly signal: AbortSignal;
  /** Sends a notifications/message log entry to the client (over SSE, when it accepts it). */
  log(level: LogLevel, data: unknown, logger?: string): void;
  /** Sends notifications/progress when the client asked for it with a progressToken. */
  progress(progress: number, total?: number, message?: string): void;
}

export type ContentBlock =
  | { type: 'text'; text: string; annotations?: object }
  | { type: 'image'; data: string; mimeType: string; annotations?: object }
  | { type: 'audio'; data: string; mimeType: string; annotations?: object }
  | {
      type: 'resource';
      resource: { uri: string; mimeType?: string; text: string } | { uri: string; mimeType?: string; blob: string };
      annotations?: object;
    }
  | { type: 'resource_link'; uri: string; name: string; mimeType?: string; description?: string };

/** What a handler of a tool without an output schema returns: content blocks as they are. */
export interface ContentResult {
  content: ContentBlock[];
  isError?: boolean;
}

export type ToolHandler<Args, Result, Errors, Services = unknown> = (args: Args, ctx: ToolContext<Errors, Services>) => Result | Promise<Result>;

/** Handlers by tool name, as the runtime receives them (the generated registry is one). */
export type HandlerMap<Services = unknown> = Readonly<Record<string, ToolHandler<never, unknown, never, Services>>>;
