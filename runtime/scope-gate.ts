/** The 403 of a request whose token lacks scopes the tool, resource or prompt requires, with its insufficient_scope challenge. */
import type { Challenges } from './auth.ts';
import type { ToolDefinition } from '../core/definition.ts';
import type { ErrorFactory } from './errors.ts';
import type { Principal } from './handler.ts';
import type { ToolRunner } from './tool-runner.ts';

export class ScopeGate {
  constructor(
    private readonly runner: ToolRunner,
    private readonly errors: ErrorFactory,
    private readonly challenges: Challenges,
  ) {}

  /** Refuses (403) a principal that lacks any of the scopes (a resource's, a prompt's, a completion target's). */
  require(scopes: readonly string[], principal: Principal): void {
    const missing = scopes.filter((s) => !principal.scopes.has(s));
    if (missing.length)
      throw this.errors.create('INSUFFICIENT_SCOPE', { scopes: missing.join(' ') }, { 'www-authenticate': this.challenges.insufficientScope(scopes) });
  }

  /** Refuses (403) a principal that lacks any of the tool's scopes, and reports the denial: for tools/call and for the tool's tasks. */
  requireTool(tool: ToolDefinition, principal: Principal): void {
    const missing = this.runner.missingScopes(tool, principal);
    if (!missing.length) return;
    this.runner.denied(tool.name, principal, 'INSUFFICIENT_SCOPE');
    throw this.errors.create('INSUFFICIENT_SCOPE', { scopes: missing.join(' ') }, { 'www-authenticate': this.challenges.insufficientScope(tool.scopes) });
  }
}
