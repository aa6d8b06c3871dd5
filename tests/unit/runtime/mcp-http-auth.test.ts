/**
 * mcpHttp and its authenticator: mcpHttp owns the error catalog and the challenges, so it checks
 * at start that the catalog has every code the authenticator refuses tokens with, each an auth
 * error (the server's claim errors included).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import Fastify from 'fastify';
import { handlers, promptHandlers, resourceHandlers } from '../../../examples/conformance/generated/handlers.gen.ts';
import { serverDefinition } from '../../../examples/conformance/generated/server.gen.ts';
import { createJwtAuthenticator, TokenRefusedError } from '../../../runtime/auth.ts';
import { FrameworkConfigError } from '../../../runtime/errors.ts';
import { mcpHttp } from '../../../runtime/http.ts';

describe('mcpHttp checks at start the codes its authenticator refuses tokens with', () => {
  const bearer = { ...serverDefinition, auth: 'bearer' as const };
  const authenticator = (claimErrors: string[]) =>
    createJwtAuthenticator<{ tenantId: string }>({
      issuer: 'http://127.0.0.1:1',
      audience: 'http://127.0.0.1:1/mcp',
      keys: async () => {
        throw new Error('unused');
      },
      claims: () => {
        throw new TokenRefusedError(claimErrors[0]!);
      },
      claimErrors,
    });

  for (const [why, codes, expected] of [
    ['a code missing from the catalog', ['TENANT_CLAIM_INVALID'], /lacks codes the runtime raises: TENANT_CLAIM_INVALID/],
    ['a code that is not surface: auth', ['TEST_ERROR'], /not surface: auth: TEST_ERROR/],
  ] as const) {
    test(`${why} fails the start`, async () => {
      const app = Fastify();
      await assert.rejects(
        async () => {
          await app.register(mcpHttp, {
            definition: bearer,
            handlers,
            resourceHandlers,
            promptHandlers,
            publicUrl: 'http://127.0.0.1:1',
            authenticator: authenticator([...codes]),
          });
          await app.ready();
        },
        (e: unknown) => e instanceof FrameworkConfigError && expected.test(e.message),
      );
      await app.close();
    });
  }
});
