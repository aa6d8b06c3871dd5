/**
 * tools.yaml's `auth:` (codegen/load/auth-load.ts): the jwt form into the model, and each bad value
 * reported once with its line and column. The YAML is written inline so the positions can be
 * counted by eye: line 1 is `server:`, line 2 `scopes:`, line 3 `tools:`, then `auth:`.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import { connectingBlocks } from '../../../codegen/docs/reference.ts';
import { parseToolsYaml } from '../../../codegen/load/load.ts';
import { ToolsYamlError } from '../../../codegen/load/problems.ts';

const FILE = path.join(process.cwd(), 'fixture', 'tools.yaml');
const HEAD = 'server: { name: s, version: "1" }\nscopes: {}\ntools: {}\n';

const load = (auth: string) => parseToolsYaml(HEAD + auth, FILE);

/** The problems of a file that must fail, as `line:col: message`. */
function problems(auth: string): string[] {
  try {
    load(auth);
  } catch (err) {
    assert.ok(err instanceof ToolsYamlError, String(err));
    return err.problems.map((p) => `${p.line}:${p.col}: ${p.message}`);
  }
  return assert.fail('expected problems');
}

const jwt = (lines: string) => `auth:\n  jwt:\n${lines.replace(/^/gm, '    ')}\n`;
const VALID = ['issuer: https://tenant.eu.auth0.com/', 'jwks_url: https://tenant.eu.auth0.com/.well-known/jwks.json', 'audience: https://mcp.example.com/mcp'];

describe('auth: { jwt }', () => {
  test('the three values go into the model as written, with the default algorithms', () => {
    assert.deepEqual(load(jwt(VALID.join('\n'))).auth, {
      jwt: {
        issuer: 'https://tenant.eu.auth0.com/',
        jwksUrl: 'https://tenant.eu.auth0.com/.well-known/jwks.json',
        audience: 'https://mcp.example.com/mcp',
        algorithms: ['RS256', 'ES256'],
      },
    });
  });

  test('algorithms, http on loopback, and an audience that is not a URL are accepted', () => {
    const m = load(
      jwt(
        ['issuer: http://localhost:8080/realms/dev', 'jwks_url: http://127.0.0.1:8080/certs', 'audience: api://4f1c', 'algorithms: [PS256, EdDSA]'].join('\n'),
      ),
    );
    assert.deepEqual(m.auth, {
      jwt: { issuer: 'http://localhost:8080/realms/dev', jwksUrl: 'http://127.0.0.1:8080/certs', audience: 'api://4f1c', algorithms: ['PS256', 'EdDSA'] },
    });
  });

  test('bearer and none are unchanged', () => {
    assert.equal(load('auth: none\n').auth, 'none');
    assert.equal(load('auth: bearer\n').auth, 'bearer');
    assert.equal(load('').auth, 'bearer');
  });

  test('each bad value is named at its line and column', () => {
    assert.deepEqual(problems(jwt(['issuer: http://issuer.example.com/', 'jwks_url: keys.json', "audience: ''"].join('\n'))), [
      '6:13: auth.jwt.issuer must use https (http only on loopback: localhost, 127.0.0.1, [::1]); issuer.example.com is not loopback',
      '7:15: auth.jwt.jwks_url must be an absolute URL (https://...), not "keys.json"',
      "8:15: auth.jwt.audience must not be empty: give the API's identifier at the issuer, which its tokens carry as aud",
    ]);
    assert.deepEqual(problems(jwt(['issuer: ftp://issuer.example.com/', 'jwks_url: https://user:pw@issuer.example.com/jwks', "audience: ' x'"].join('\n'))), [
      '6:13: auth.jwt.issuer must be an https URL, not ftp:',
      '7:15: auth.jwt.jwks_url must not carry credentials (user:password@)',
      '8:15: auth.jwt.audience must not have spaces around it',
    ]);
  });

  test('a misspelled or missing key, and an algorithm no JWKS can serve', () => {
    const found = problems(
      jwt(
        [
          'issuer: https://issuer.example.com/',
          'jwks_uri: https://issuer.example.com/jwks',
          'audience: https://mcp.example.com/mcp',
          'algorithms: [HS256]',
        ].join('\n'),
      ),
    );
    assert.deepEqual(found, [
      '5:3: auth.jwt is missing the required key jwks_url',
      '7:5: unknown key jwks_uri in auth.jwt (did you mean jwks_url?)',
      '9:18: auth.jwt.algorithms.0 must be one of RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384, ES512, EdDSA',
    ]);
  });

  test('auth of no known form: one problem naming the forms, not one per branch', () => {
    assert.deepEqual(problems('auth: jwt\n'), ['4:7: auth must be bearer, none, or jwt: { issuer, jwks_url, audience }']);
    assert.deepEqual(problems('auth: { oauth: {} }\n'), ['4:1: auth is missing the required key jwt', '4:9: unknown key oauth in auth']);
  });
});

test("the reference's Connecting section of a jwt server says whose token to send", () => {
  const [, paragraph] = connectingBlocks(load(jwt(VALID.join('\n'))), 'https://mcp.example.com');
  assert.deepEqual(paragraph, {
    kind: 'paragraph',
    text:
      'The endpoint is `https://mcp.example.com/mcp` (POST, JSON-RPC 2.0 over MCP Streamable HTTP). Every request carries ' +
      '`Authorization: Bearer <ACCESS_TOKEN>`: an access token from `https://tenant.eu.auth0.com/` for the audience `https://mcp.example.com/mcp`.',
  });
});
