/**
 * runtime/jwt-config.ts: the settings of `auth: { jwt }` as the environment overrides them, the
 * scopes a token grants in the forms issuers write them, and the start refusing what cannot work.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import Fastify from 'fastify';
import { handlers } from '../../fixtures/jwt-auth/generated/handlers.gen.ts';
import { serverDefinition } from '../../fixtures/jwt-auth/generated/server.gen.ts';
import { serverDefinition as noAuthDefinition } from '../../../examples/conformance/generated/server.gen.ts';
import { FrameworkConfigError } from '../../../runtime/errors.ts';
import { mcpHttp } from '../../../runtime/http.ts';
import { authenticatorFromDefinition, grantedScopes, resolveJwtSettings } from '../../../runtime/jwt-config.ts';
import type { JwtSettings } from '../../../core/jwt-settings.ts';

const declared: JwtSettings = {
  issuer: 'https://tenant.eu.auth0.com/',
  jwksUrl: 'https://tenant.eu.auth0.com/.well-known/jwks.json',
  audience: 'https://mcp.example.com/mcp',
  algorithms: ['RS256'],
};

describe('resolveJwtSettings', () => {
  test("without overrides: tools.yaml's values (an empty variable counts as unset)", () => {
    assert.deepEqual(resolveJwtSettings(declared, {}), declared);
    assert.deepEqual(resolveJwtSettings(declared, { MCP_AUTH_ISSUER: '' }), declared);
  });

  test('each variable overrides its value alone', () => {
    const env = {
      MCP_AUTH_ISSUER: 'https://kc.example.com/realms/prod',
      MCP_AUTH_JWKS_URL: 'https://kc.example.com/realms/prod/protocol/openid-connect/certs',
    };
    assert.deepEqual(resolveJwtSettings(declared, env), { ...declared, issuer: env.MCP_AUTH_ISSUER, jwksUrl: env.MCP_AUTH_JWKS_URL });
    assert.deepEqual(resolveJwtSettings(declared, { MCP_AUTH_AUDIENCE: 'api://mcp' }), { ...declared, audience: 'api://mcp' });
  });

  for (const [variable, value, message] of [
    [
      'MCP_AUTH_ISSUER',
      'http://kc.example.com/realms/prod',
      /^MCP_AUTH_ISSUER must use https .* kc\.example\.com is not loopback; it overrides auth\.jwt\.issuer of tools\.yaml$/,
    ],
    ['MCP_AUTH_JWKS_URL', 'certs.json', /^MCP_AUTH_JWKS_URL must be an absolute URL .*; it overrides auth\.jwt\.jwks_url of tools\.yaml$/],
    ['MCP_AUTH_AUDIENCE', ' api://mcp', /^MCP_AUTH_AUDIENCE must not have spaces around it; it overrides auth\.jwt\.audience/],
  ] as const) {
    test(`a bad ${variable} fails, naming the variable`, () => {
      assert.throws(
        () => resolveJwtSettings(declared, { [variable]: value }),
        (e: unknown) => e instanceof FrameworkConfigError && message.test(e.message),
      );
    });
  }
});

describe('grantedScopes', () => {
  test('scope (space-separated), scp as a string (Entra) or an array (Okta), together, without duplicates', () => {
    assert.deepEqual(grantedScopes({ scope: 'openid  notes:read' }), ['openid', 'notes:read']);
    assert.deepEqual(grantedScopes({ scp: 'Notes.Read Notes.Write' }), ['Notes.Read', 'Notes.Write']);
    assert.deepEqual(grantedScopes({ scp: ['notes:read', 'notes:write', 7] }), ['notes:read', 'notes:write']);
    assert.deepEqual(grantedScopes({ scope: 'a b', scp: ['b', 'c'] }), ['a', 'b', 'c']);
    assert.deepEqual(grantedScopes({ scope: 42 }), []);
  });
});

describe('the start', () => {
  test('authenticatorFromDefinition refuses a server that is not auth: { jwt }', () => {
    assert.throws(
      () => authenticatorFromDefinition(noAuthDefinition, {}),
      (e: unknown) => e instanceof FrameworkConfigError && /says auth: none/.test(e.message),
    );
  });

  test('mcpHttp of an auth: { jwt } server fails to start on a bad override', async () => {
    const app = Fastify();
    await assert.rejects(
      async () => {
        await app.register(mcpHttp, {
          definition: serverDefinition,
          handlers,
          publicUrl: 'http://127.0.0.1:1',
          jwt: { env: { MCP_AUTH_JWKS_URL: 'http://keys.example.com/jwks' } },
        });
        await app.ready();
      },
      (e: unknown) => e instanceof FrameworkConfigError && e.message.startsWith('MCP_AUTH_JWKS_URL must use https'),
    );
    await app.close();
  });
});
