/** The public reference page (/docs), for anyone connecting a client; signed-in users see the usual navigation. */
import type { FastifyInstance } from 'fastify';
import { clientConfigs, signInConfigs } from 'mcpyard';
import { referenceHtml, referenceTitle } from '../reference-docs.ts';
import { signedInFrame, type WebContext } from './context.ts';
import { docsPage } from './pages/docs.ts';

export async function docsRoutes(app: FastifyInstance, ctx: WebContext): Promise<void> {
  const configs = clientConfigs({ serverName: ctx.serverName, url: ctx.mcpUrl, authorization: 'Bearer <ACCESS_TOKEN>' });
  const signIn = signInConfigs({ serverName: ctx.serverName, url: ctx.mcpUrl });
  app.get('/docs', async (req, reply) => {
    // Read on the first visit (docs/reference.html): the reference is large, and most servers serve it rarely.
    const reference = await referenceHtml();
    const body = docsPage({
      appName: ctx.appName,
      title: referenceTitle,
      mcpUrl: ctx.mcpUrl,
      configs,
      signInConfigs: signIn,
      referenceHtml: reference,
      ...(await signedInFrame(ctx, req, reply)),
    });
    return reply.type('text/html; charset=utf-8').send(body);
  });
}
