/** The redirect URIs a client may register: what real MCP clients register passes; the rest is refused with a reason a developer can act on. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { errors } from 'oidc-provider';
import { redirectUriProblem, redirectUriRules } from '../../../app/oauth/redirect-uris.ts';
import { clientMetadataRules } from '../../../app/oauth/client-metadata.ts';

describe('redirect URIs', () => {
  test('the shapes real MCP clients register pass', () => {
    const accepted: [string, string][] = [
      ['https://claude.ai/api/mcp/auth_callback', 'web'], // Claude
      ['https://chatgpt.com/connector_platform_oauth_redirect', 'web'], // ChatGPT
      ['http://localhost:54123/callback', 'web'], // Claude Code, MCP SDK clients (no application_type)
      ['http://127.0.0.1:33418', 'web'], // VS Code
      ['https://vscode.dev/redirect', 'web'], // VS Code
      ['http://[::1]:8080/cb', 'web'],
      ['http://localhost:6274/oauth/callback', 'web'], // MCP Inspector
      ['cursor://anysphere.cursor-retrieval/oauth/user-outreach/callback', 'native'], // Cursor
      ['vscode://vscode.github-authentication/did-authenticate', 'native'],
      ['http://127.0.0.1/callback', 'native'],
    ];
    for (const [uri, type] of accepted) assert.equal(redirectUriProblem(uri, type), undefined, `${type} ${uri}`);
  });

  test('refused, each with what is wrong and how to fix it', () => {
    const refused: [string, string, RegExp][] = [
      [
        'http://evil.example/cb',
        'web',
        /uses http on a host other than this computer; a web client must use https \(http only on localhost, 127\.0\.0\.1 or \[::1\]\)$/,
      ],
      ['http://localhost.evil.example/cb', 'web', /uses http on a host other than this computer/],
      ['http://127.0.0.1.nip.io/cb', 'web', /uses http on a host other than this computer/],
      ['https://user:pw@evil.example/cb', 'web', /has a user name or password before the host; register the address without them$/],
      ['https://claude.ai@evil.example/cb', 'web', /has a user name or password before the host/],
      ['https://user:pw@app.example/cb', 'native', /has a user name or password before the host/],
      ['https://app.example/cb#x', 'web', /has a fragment \(#\.\.\.\); register it without one/],
      ['cursor://anysphere.cursor-retrieval/oauth/callback', 'web', /is not an https address; .*registers with "application_type": "native"$/],
      ['javascript:alert(1)', 'web', /is not an https address/],
    ];
    for (const [uri, type, reason] of refused) {
      const problem = redirectUriProblem(uri, type);
      assert.ok(problem?.startsWith(`redirect_uris: ${uri} `), `${type} ${uri}: ${problem}`);
      assert.match(problem!, reason, `${type} ${uri}`);
    }
  });

  test('a control or bidi character, quoted as \\uXXXX, for every application type; found before the URL parser drops or encodes it', () => {
    for (const type of ['web', 'native'])
      for (const [uri, shown, codePoint] of [
        ['https://app.example/cb\u0000', 'https://app.example/cb\\u0000', 'U+0000'],
        ['http://127.0.0.1/cb\t', 'http://127.0.0.1/cb\\u0009', 'U+0009'],
        ['cursor://app/cb\u200e', 'cursor://app/cb\\u200e', 'U+200E'],
      ] as const)
        assert.equal(redirectUriProblem(uri, type), `redirect_uris: ${shown} contains the character ${codePoint}; register the address without it`);
  });

  test('the client name: controls and bidi overrides refused as invalid_client_metadata, right-to-left marks allowed', () => {
    const metadata = { client_id: 'c1' };
    assert.throws(
      () => clientMetadataRules.validator!(undefined, 'client_name', 'Claude\u0000', metadata),
      (err: unknown) => {
        assert.ok(err instanceof errors.InvalidClientMetadata);
        assert.equal(err.error, 'invalid_client_metadata');
        assert.equal(err.error_description, 'client_name "Claude\\u0000" contains the character U+0000; register a name of printable characters on one line');
        return true;
      },
    );
    assert.throws(() => clientMetadataRules.validator!(undefined, 'client_name', '\u202eedualC', metadata), errors.InvalidClientMetadata);
    clientMetadataRules.validator!(undefined, 'client_name', 'مساعد\u200f', metadata);
    clientMetadataRules.validator!(undefined, 'client_name', undefined, metadata);
    // It checks the redirect URIs too.
    assert.throws(
      () => clientMetadataRules.validator!(undefined, 'redirect_uris', ['https://a.example/\u0000'], { ...metadata, application_type: 'web' }),
      /invalid_redirect_uri/,
    );
  });

  test("oidc-provider's validator raises RFC 7591 invalid_redirect_uri with that description", () => {
    const metadata = { client_id: 'c1', application_type: 'web' as const, redirect_uris: ['https://ok.example/cb', 'http://evil.example/cb'] };
    assert.throws(
      () => redirectUriRules.validator!(undefined, 'redirect_uris', metadata.redirect_uris, metadata),
      (err: unknown) => {
        assert.ok(err instanceof errors.InvalidClientMetadata);
        assert.equal(err.error, 'invalid_redirect_uri');
        assert.match(err.error_description!, /^redirect_uris: http:\/\/evil\.example\/cb uses http/);
        return true;
      },
    );
    // Shapes that are oidc-provider's to refuse are left to it.
    redirectUriRules.validator!(undefined, 'redirect_uris', 'not an array', metadata);
    redirectUriRules.validator!(undefined, 'redirect_uris', [42, 'not a url'], metadata);
  });
});
