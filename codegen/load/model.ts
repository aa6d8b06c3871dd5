/** The plain intermediate model the emitters work from: everything resolved, sorted and validated. */
import type { JSONSchema } from './json-schema.ts';
import type { Problem } from './problems.ts';
import type { ToolParts } from '../cache/tool-parts.ts';
import type { ValidatorModules } from './validator-modules.ts';
import type { AuthDefinition, ErrorSurface, UiResourceMeta, UiVisibility } from '../../core/definition.ts';
import type { ParamType } from '../../core/framework-errors.ts';

export type { ErrorSurface, ParamType };

export interface ErrorModel {
  code: string;
  message: string;
  surface: ErrorSurface;
  status?: number;
  rpcCode?: number;
  remedy?: string;
  /** Parameters in order of first appearance in the template. */
  params: { name: string; type: ParamType }[];
  /** True for codes the runtime itself raises (merged in from the framework catalog). */
  framework: boolean;
}

export interface ScopeModel {
  name: string;
  description: string;
  default: boolean;
}

export interface ToolAnnotations {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

export interface ToolExample {
  title?: string;
  arguments: Record<string, unknown>;
  result?: unknown;
  error?: string;
  /** Values of the error message's parameters, for the docs to show the message a client gets. */
  error_params?: Record<string, string | number>;
}

export interface ToolModel {
  name: string;
  /** PascalCase base for type names: create_campaign -> CreateCampaign. */
  typeName: string;
  title?: string;
  description: string;
  scopes: string[];
  annotations?: ToolAnnotations;
  /** Runs as a task for clients of the tasks extension (2026-07-28). */
  task?: 'optional' | 'required';
  /** Client capabilities the tool cannot run without (checked at 2026-07-28). */
  clientCapabilities?: ('elicitation' | 'roots' | 'sampling')[];
  /** The schemas as declared: they may refer to the file's $defs (`$ref: '#/$defs/<Name>'`). */
  input: JSONSchema;
  output?: JSONSchema;
  /** The same schemas with every reference inlined: what clients get in tools/list. */
  inputSchema: JSONSchema;
  outputSchema?: JSONSchema;
  errors: string[];
  examples: ToolExample[];
  /** MCP Apps: the app it opens (by name, and its URI once resolved) and who may call it; absent when tools.yaml says nothing. */
  ui?: { app?: string; resourceUri?: string; visibility?: UiVisibility[] };
}

/** An MCP App: a `ui://` HTML document hosts render for the tools that open it. */
export interface AppModel {
  name: string;
  /** PascalCase base for names: notes_board -> NotesBoard (the client's `apps.notesBoard`). */
  typeName: string;
  uri: string;
  title?: string;
  description: string;
  /** The HTML file as declared, absolute. */
  htmlFile: string;
  /** The document as served: its relative scripts bundled and inlined (app-html.ts). */
  html: string;
  /** Every file the document was built from (outside node_modules), absolute: a change to one makes the outputs stale. */
  inputs: string[];
  /** The resource's `_meta.ui`, as clients get it. */
  ui: UiResourceMeta;
}

/** A prompt argument or a template variable: a string the client gives. */
export interface ArgumentModel {
  name: string;
  description: string;
  /** The handler completes it. */
  complete: boolean;
  /** Prompt arguments only: the client must give it (template variables always are). */
  required: boolean;
}

export interface ResourceModel {
  name: string;
  /** PascalCase base for type names: campaign -> CampaignResource. */
  typeName: string;
  /** Exactly one of uri and uriTemplate. */
  uri?: string;
  uriTemplate?: string;
  title?: string;
  description: string;
  mimeType?: string;
  scopes: string[];
  errors: string[];
  /** The template's variables in order of appearance (none for a fixed uri). */
  variables: ArgumentModel[];
  cache: { ttlMs: number; scope: 'public' | 'private' };
}

export interface PromptModel {
  name: string;
  /** PascalCase base for type names: plan_campaign -> PlanCampaignPrompt. */
  typeName: string;
  title?: string;
  description: string;
  scopes: string[];
  errors: string[];
  arguments: ArgumentModel[];
}

/** A shared shape (an entry of the file's $defs): one named type, one section of the docs. */
export interface DefModel {
  name: string;
  schema: JSONSchema;
}

export interface ServerModel {
  name: string;
  version: string;
  title?: string;
  instructions?: string;
  /** How a client gets its bearer token, for the docs' "Connecting". */
  token_help?: string;
  /** The server's MCP registry entry (server.json), if it is published. */
  registry?: { name: string; description: string };
}

export interface ProjectPaths {
  /** Absolute path of the tools.yaml. */
  source: string;
  /** Absolute folder for generated files. */
  generated: string;
  /** Absolute folder of handler files. */
  handlers: string;
  /** Absolute folders of resource and prompt handler files: `resources/` and `prompts/` beside the tools' folder. */
  resourceHandlers: string;
  promptHandlers: string;
  /** Absolute path of the generated reference doc, if any. */
  docs?: string;
  /** Absolute path of the committed contract snapshot (see contract/gate.ts). */
  contract: string;
  /** How generated code imports the framework's runtime (the package's main entry) and its client base. */
  runtimeImport: string;
  clientImport: string;
  /** The application's services type handed to every handler (`ctx.services`), if it names one. */
  services?: { file: string; type: string };
  /** The fields the server's claims function adds to every handler's `ctx.principal`, if it names them. */
  principal?: { file: string; type: string };
}

/** Which of the loader's advisory checks run (both by default). */
export interface LintOptions {
  /** Warn about fields without a description. */
  descriptions: boolean;
  /** Warn about schema constructs that common clients mishandle. */
  portability: boolean;
  /** Portability findings accepted on purpose, each with the reason. */
  allow: { tool: string; path: string; rule: string; why: string }[];
}

export interface Model {
  paths: ProjectPaths;
  lint: LintOptions;
  server: ServerModel;
  /** bearer (the default), none, or the settings of bearer JWTs from the server's own issuer. */
  auth: AuthDefinition;
  scopes: ScopeModel[];
  errors: ErrorModel[];
  /** Shared shapes, sorted by name. */
  defs: DefModel[];
  tools: ToolModel[];
  /** Sorted by name. */
  resources: ResourceModel[];
  prompts: PromptModel[];
  /** Sorted by name. */
  apps: AppModel[];
  /** The validator modules, as the loader compiled them (or found them in the cache); the validators emitter writes them. */
  validators: ValidatorModules;
  /** Each tool's part of the other outputs, kept between runs when the loader was asked to cache (tool-parts.ts). */
  parts: ToolParts;
  /** What the loader found questionable but not wrong (e.g. a field without a description). */
  warnings: Problem[];
}
