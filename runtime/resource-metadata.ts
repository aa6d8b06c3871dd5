/** RFC 9728 protected-resource metadata for the MCP endpoint, in its path-inserted and root forms. */
import type { FastifyInstance } from 'fastify';

export interface ResourceMetadataOptions {
  /** The MCP URL (the token audience). */
  resource: string;
  authorizationServers: string[];
  scopes: string[];
  resourceName?: string;
  path?: string;
}

export async function resourceMetadata(app: FastifyInstance, options: ResourceMetadataOptions): Promise<void> {
  const body = JSON.stringify({
    resource: options.resource,
    authorization_servers: options.authorizationServers,
    scopes_supported: options.scopes,
    bearer_methods_supported: ['header'],
    ...(options.resourceName !== undefined && { resource_name: options.resourceName }),
  });
  const send = (_req: unknown, reply: { header(k: string, v: string): unknown; send(b: string): unknown }) => {
    reply.header('content-type', 'application/json');
    reply.header('cache-control', 'public, max-age=3600');
    return reply.send(body);
  };
  app.get(`/.well-known/oauth-protected-resource${options.path ?? '/mcp'}`, send);
  app.get('/.well-known/oauth-protected-resource', send);
}
