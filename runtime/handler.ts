/** The contract between the runtime and a tool handler. */

/**
 * What a server makes of a token's claims besides the runtime's own fields: named strings (the id
 * of the tenant the caller acts for, say), returned by its claims function (JwtAuthOptions).
 * They also tell callers apart: tasks and paused calls belong to the subject and these values.
 */
export type PrincipalClaims = { readonly [name: string]: string };

/** The claims of a server that adds none to its principals (an `auth: none` fixture, say). */
export type NoClaims = Record<never, never>;

/**
 * Who is calling: the verified token's subject and scopes, and `Claims`, the fields the server's
 * claims function returned for the token (`ctx.principal.tenantId`, say). The generated handler
 * types name the server's `Claims` (tools.yaml, `codegen.principal`).
 */
export type Principal<Claims extends PrincipalClaims = NoClaims> = Readonly<Claims> & {
  /** The user (`sub`). */
  readonly subject: string;
  readonly scopes: ReadonlySet<string>;
  readonly grantId?: string;
  readonly clientId?: string;
  /** Expiry, seconds since the epoch. */
  readonly expiresAt: number;
};

export type LogLevel = 'debug' | 'info' | 'notice' | 'warning' | 'error' | 'critical' | 'alert' | 'emergency';

/**
 * What every handler gets besides its input. `Services` is the application's own (its stores,
 * clock, ...), named in tools.yaml (`codegen.services`) so the generated handler types carry it.
 */
export interface RequestContext<Errors, Services = unknown, Claims extends PrincipalClaims = NoClaims> {
  readonly principal: Principal<Claims>;
  readonly services: Services;
  /** Constructors for the catalog errors the tool, resource or prompt declares: `throw ctx.errors.CODE({...})`. */
  readonly errors: Errors;
  /** Aborted when the client cancels or disconnects. */
  readonly signal: AbortSignal;
  /** Sends a notifications/message log entry to the client (over SSE, when it accepts it). */
  log(level: LogLevel, data: unknown, logger?: string): void;
}

/**
 * Asking the client for input during a tools/call or prompts/get. At 2026-07-28 the handler runs
 * again from the start once the client has the answers: do not write before asking. Questions
 * asked together (`Promise.all`) go to the client together.
 */
export interface InputAsking {
  /**
   * Asks the user, through the client, for input (elicitation/create). Throws InputUnavailableError
   * when the client cannot ask (no elicitation capability, or no event stream in the handshake era);
   * uncaught in a tool, that becomes a tool error saying so.
   */
  elicit(request: ElicitRequest, options?: AskOptions): Promise<ElicitResult>;
  /** Asks the client's model for a completion (sampling/createMessage); same rules as elicit. */
  sample(request: SamplingRequest, options?: AskOptions): Promise<SamplingResult>;
  /** Asks the client for its roots (roots/list); same rules as elicit. */
  listRoots(options?: AskOptions): Promise<{ roots: { uri: string; name?: string }[] }>;
}

export interface AskOptions {
  /**
   * The question's key in `inputRequests` at 2026-07-28 (1 to 64 letters, digits, `_`, `-`, `.`),
   * unique within the call; default `input-1`, `input-2`, ... in the order asked.
   */
  key?: string;
}

export interface ToolContext<Errors, Services = unknown, Claims extends PrincipalClaims = NoClaims>
  extends RequestContext<Errors, Services, Claims>, InputAsking {
  readonly tool: string;
  /** Sends notifications/progress when the client asked for it with a progressToken. */
  progress(progress: number, total?: number, message?: string): void;
}

/** A question put to the user through the client: a form (the default), or a page of the server the client opens (2025-11-25). */
export type ElicitRequest = FormElicitRequest | UrlElicitRequest;

export interface FormElicitRequest {
  /** Omitted for 2025-06-18 clients, which know no other mode. */
  mode?: 'form';
  message: string;
  /** A flat object schema of primitive fields (the protocol's restriction). */
  requestedSchema: { type: 'object'; properties: Record<string, object>; required?: string[] };
}

/**
 * URL mode (2025-11-25): the client shows the URL with its host and, with the user's consent, opens
 * it in a browser where the client cannot see or act; the answer says only whether the user agreed
 * to open it (`accept`, no content). What the user does there reaches the server by itself, so
 * the page must know the user by its own sign-in, never by the link alone. A client that declares
 * elicitation without `url` (2026-07-28) cannot be asked: InputUnavailableError; a handshake-era
 * client without it answers with an error: InputRequestFailedError.
 */
export interface UrlElicitRequest {
  mode: 'url';
  message: string;
  /** An absolute URL of a page that identifies the user itself (no credential in it). */
  url: string;
  /** Names the interaction, unique for the server (its completion can be told by it). */
  elicitationId: string;
}

export interface ElicitResult {
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, unknown>;
}

export interface SamplingRequest {
  messages: { role: 'user' | 'assistant'; content: ContentBlock }[];
  maxTokens: number;
  systemPrompt?: string;
  [field: string]: unknown;
}

export interface SamplingResult {
  role: 'user' | 'assistant';
  content: ContentBlock;
  model: string;
  stopReason?: string;
}

export interface ResourceContext<Errors, Services = unknown, Claims extends PrincipalClaims = NoClaims> extends RequestContext<Errors, Services, Claims> {
  /** The resource's name in tools.yaml. */
  readonly resource: string;
  /** The URI being read. */
  readonly uri: string;
}

export interface PromptContext<Errors, Services = unknown, Claims extends PrincipalClaims = NoClaims>
  extends RequestContext<Errors, Services, Claims>, InputAsking {
  readonly prompt: string;
}

/** What a completer gets: who asks, and the values the client has already chosen for the other arguments. */
export interface CompletionContext<Services = unknown, Claims extends PrincipalClaims = NoClaims> {
  readonly principal: Principal<Claims>;
  readonly services: Services;
  readonly signal: AbortSignal;
  /** The argument (or template variable) being completed. */
  readonly argument: string;
  /** `context.arguments` of the request: the other arguments' values so far. */
  readonly arguments: Readonly<Record<string, string>>;
}

/** Suggested values (at most 100 are sent; more set hasMore). */
export type Completion = readonly string[] | { values: readonly string[]; total?: number; hasMore?: boolean };

export type Completer<Services = unknown, Claims extends PrincipalClaims = NoClaims> = (
  value: string,
  ctx: CompletionContext<Services, Claims>,
) => Completion | Promise<Completion>;

/** A `complete` function for each completable argument; none when there is none. */
export type Completers<Completable extends string, Services, Claims extends PrincipalClaims = NoClaims> = [Completable] extends [never]
  ? { readonly complete?: undefined }
  : { readonly complete: { readonly [K in Completable]: Completer<Services, Claims> } };

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

/**
 * A tool's handler: its validated arguments and the context in, its result out (checked against
 * the tool's output schema). Handlers are typed by what `npm run gen` writes for their tool, a
 * ToolHandler with the tool's arguments, result, error codes, services and principal claims.
 *
 * @example
 * // tools/get_note.ts (a server whose tools.yaml declares get_note, raising NOTE_NOT_FOUND)
 * import type { GetNoteHandler } from '../generated/tools/get_note.gen.ts';
 *
 * export const handler: GetNoteHandler = async (args, ctx) => {
 *   const note = await ctx.services.notes.get(ctx.principal.tenantId, args.note_id);
 *   if (!note) throw ctx.errors.NOTE_NOT_FOUND({ note_id: args.note_id }); // an isError result the model reads
 *   return { note };
 * };
 */
export type ToolHandler<Args, Result, Errors, Services = unknown, Claims extends PrincipalClaims = NoClaims> = (
  args: Args,
  ctx: ToolContext<Errors, Services, Claims>,
) => Result | Promise<Result>;

/** One item of a resources/read result; `uri` defaults to the URI read and `mimeType` to the declared one. */
export type ResourceContent = ({ text: string } | { blob: string }) & { uri?: string; mimeType?: string; annotations?: object };

/** What a resource handler returns: one content item, or several. */
export type ResourceReadResult = ResourceContent | readonly ResourceContent[];

/**
 * A resource's handler: `read` gets the URI template's variables (percent-decoded) and returns the
 * contents; `complete` suggests values for the variables tools.yaml marks completable.
 *
 * @example
 * // resources/note.ts (uri_template: notes://notes/{note_id}, note_id completable)
 * import type { NoteResourceHandler } from '../generated/resources.gen.ts';
 *
 * export const handler: NoteResourceHandler = {
 *   async read({ note_id }, ctx) {
 *     const note = await ctx.services.notes.get(ctx.principal.tenantId, note_id);
 *     if (!note) throw ctx.errors.NOTE_NOT_FOUND({ note_id });
 *     return { text: JSON.stringify(note) };
 *   },
 *   complete: { note_id: async (prefix, ctx) => ctx.services.notes.idsStartingWith(ctx.principal.tenantId, prefix) },
 * };
 */
export type ResourceHandler<Variables, Errors, Services = unknown, Completable extends string = never, Claims extends PrincipalClaims = NoClaims> = {
  read(variables: Variables, ctx: ResourceContext<Errors, Services, Claims>): ResourceReadResult | Promise<ResourceReadResult>;
} & Completers<Completable, Services, Claims>;

export interface PromptMessage {
  role: 'user' | 'assistant';
  content: ContentBlock;
}

export interface PromptResult {
  description?: string;
  messages: PromptMessage[];
}

/**
 * A prompt's handler: `get` gets the prompt's arguments (strings) and returns its messages.
 *
 * @example
 * // prompts/summarise_note.ts
 * import type { SummariseNotePromptHandler } from '../generated/prompts.gen.ts';
 *
 * export const handler: SummariseNotePromptHandler = {
 *   get({ note_id }) {
 *     return { messages: [{ role: 'user', content: { type: 'text', text: `Summarise note ${note_id} in three lines.` } }] };
 *   },
 * };
 */
export type PromptHandler<Args, Errors, Services = unknown, Completable extends string = never, Claims extends PrincipalClaims = NoClaims> = {
  get(args: Args, ctx: PromptContext<Errors, Services, Claims>): PromptResult | Promise<PromptResult>;
} & Completers<Completable, Services, Claims>;

/** Any resource or prompt handler, as the runtime holds them (the generated registries check each one's own type). */
export interface AnyFeatureHandler<Services = unknown, Claims extends PrincipalClaims = NoClaims> {
  readonly read?: (variables: never, ctx: never) => unknown;
  readonly get?: (args: never, ctx: never) => unknown;
  readonly complete?: Readonly<Record<string, Completer<Services, Claims>>> | undefined;
}

/** Handlers by tool name, as the runtime receives them (the generated registry is one). */
export type HandlerMap<Services = unknown, Claims extends PrincipalClaims = NoClaims> = Readonly<
  Record<string, ToolHandler<never, unknown, never, Services, Claims>>
>;
