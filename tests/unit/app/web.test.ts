/** Pure pieces of the web app: escaping, client configurations, return paths, consent forms, CSP, the demo rule. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isLoopback } from '../../../app/config.ts';
import { demoAllowed, randomPassword } from '../../../app/seed.ts';
import { clientConfigs } from '../../../runtime/index.ts';
import { chosenScopes, safeNext } from '../../../app/web/context.ts';
import { html, raw } from '../../../app/html/html.ts';
import { consentPolicy } from '../../../app/html/security.ts';
import { UNCONFIRMED_MESSAGE } from '../../../app/domain/unconfirmed.ts';
import { conversationPage, type ConversationView } from '../../../app/web/pages/conversation.ts';

describe('html', () => {
  // Called through another name so that the formatter leaves the exact markup of these cases alone.
  const h = html;
  test('every interpolation is escaped unless it is itself html; arrays join; false, null and undefined vanish', () => {
    const name = `<img src=x onerror="alert('x')">&`;
    assert.equal(
      h`<p title="${name}">${name}</p>`.value,
      '<p title="&lt;img src=x onerror=&quot;alert(&#39;x&#39;)&quot;&gt;&amp;">&lt;img src=x onerror=&quot;alert(&#39;x&#39;)&quot;&gt;&amp;</p>',
    );
    assert.equal(h`<ul>${['a<', 'b'].map((x) => h`<li>${x}</li>`)}</ul>`.value, '<ul><li>a&lt;</li><li>b</li></ul>');
    assert.equal(h`${false}${null}${undefined}${0}${raw('<br>')}`.value, '0<br>');
  });
});

describe('client configurations', () => {
  const input = { serverName: 'outreach-mcp', url: 'https://mcp.example.com/mcp', authorization: 'Bearer abc.def.ghi' };
  test('each JSON configuration parses and carries the URL and the whole header value', () => {
    const configs = clientConfigs(input);
    assert.deepEqual(
      configs.map((c) => c.id),
      ['claude-code', 'claude-cli', 'cursor', 'vscode', 'generic'],
    );
    const json = Object.fromEntries(configs.filter((c) => c.id !== 'claude-cli').map((c) => [c.id, JSON.parse(c.text)]));
    const headers = { Authorization: 'Bearer abc.def.ghi' };
    assert.deepEqual(json['claude-code'], { mcpServers: { 'outreach-mcp': { type: 'http', url: input.url, headers } } });
    assert.deepEqual(json.cursor, { mcpServers: { 'outreach-mcp': { url: input.url, headers } } });
    assert.deepEqual(json.vscode, { servers: { 'outreach-mcp': { type: 'http', url: input.url, headers } } });
    assert.deepEqual(json.generic, { type: 'http', url: input.url, headers });
  });
  test('the claude mcp add command quotes every value for the shell', () => {
    const command = clientConfigs({ ...input, serverName: "it's" }).find((c) => c.id === 'claude-cli')!.text;
    assert.equal(command, `claude mcp add --transport http 'it'\\''s' 'https://mcp.example.com/mcp' --header 'Authorization: Bearer abc.def.ghi'`);
  });
});

describe('where to go after signing in', () => {
  test('our own pages only', () => {
    for (const ok of ['/app', '/app/mcp', '/app/campaigns/cmp_1', '/interaction/AbC-123_x', '/app/activity?before=2026%7Cx']) assert.equal(safeNext(ok), ok);
    for (const bad of [
      '//evil.example',
      'https://evil.example/app',
      '/\\evil.example',
      '/app/../x',
      '/signin',
      '/app\n',
      'javascript:x',
      undefined,
      5,
      '/interaction/a/b',
    ])
      assert.equal(safeNext(bad), undefined, String(bad));
  });
});

describe('consent form scopes', () => {
  const known = new Set(['mcp:read', 'mcp:write']);
  test('none, one or several known scopes; anything else refuses the form', () => {
    assert.deepEqual(chosenScopes(undefined, known), []);
    assert.deepEqual(chosenScopes('mcp:read', known), ['mcp:read']);
    assert.deepEqual(chosenScopes(['mcp:read', 'mcp:write', 'mcp:read'], known), ['mcp:read', 'mcp:write']);
    assert.equal(chosenScopes(['mcp:read', 'admin'], known), undefined);
    assert.equal(chosenScopes({ toString: 'mcp:read' }, known), undefined);
  });
});

describe('the consent page policy', () => {
  test("form-action adds the redirect URI's origin, or its scheme for app schemes, and nothing for junk", () => {
    assert.match(consentPolicy(false, 'http://127.0.0.1:33418/callback'), /form-action 'self' http:\/\/127\.0\.0\.1:33418;/);
    assert.match(consentPolicy(true, 'cursor://anysphere.cursor-retrieval/oauth/callback'), /form-action 'self' cursor:;/);
    assert.match(consentPolicy(false, 'not a url'), /form-action 'self';/);
    assert.match(consentPolicy(true, 'https://claude.ai/api/mcp/auth_callback'), /upgrade-insecure-requests/);
  });
});

describe('the demo account', () => {
  test('only a server that listens on loopback and is published on loopback may have one', () => {
    for (const host of ['127.0.0.1', '127.1.2.3', '::1', '[::1]', 'localhost', 'LOCALHOST']) assert.ok(isLoopback(host), host);
    for (const host of ['0.0.0.0', '::', '10.0.0.1', 'example.com', '128.0.0.1', 'localhost.example.com']) assert.ok(!isLoopback(host), host);
    assert.ok(demoAllowed({ host: '127.0.0.1', publicUrl: 'http://127.0.0.1:3000' }));
    assert.ok(demoAllowed({ host: '::1', publicUrl: 'http://[::1]:3000' }));
    assert.ok(!demoAllowed({ host: '0.0.0.0', publicUrl: 'http://127.0.0.1:3000' }), 'listening on every interface');
    assert.ok(!demoAllowed({ host: '127.0.0.1', publicUrl: 'https://mcp.example.com' }), 'published on a public address');
  });
  test('its password is random and long', () => {
    const a = randomPassword();
    assert.match(a, /^[a-z2-9]{5}(-[a-z2-9]{5}){3}$/);
    assert.notEqual(a, randomPassword());
  });
});

describe('a message handed to its mail server whole, whose answer never came', () => {
  const view = (error: string | undefined): ConversationView => ({
    appName: 'Outreach',
    viewer: { name: 'Ada', email: 'ada@example.com' },
    csrf: 'csrf',
    heading: {
      id: 'cnv_1',
      profile_id: 'prf_1',
      profile_name: 'Nu',
      campaign_id: null,
      campaign_name: null,
      lead_name: 'Grace',
      lead_company: null,
      unsubscribed: null,
    },
    messages: [
      {
        id: 'msg_1',
        conversation_id: 'cnv_1',
        direction: 'outbound',
        status: 'delivered',
        text: 'Hi Grace',
        created_at: '2026-11-23T10:00:00.000Z',
        delivered_at: '2026-11-23T10:00:02.000Z',
        ...(error !== undefined && { error }),
      },
    ],
    steps: new Map(),
  });

  test('reads "sent, unconfirmed" with why, never "delivered"; an accepted one reads delivered', () => {
    const unconfirmed = conversationPage(view(UNCONFIRMED_MESSAGE));
    assert.match(unconfirmed, /<span class="badge unconfirmed">sent, unconfirmed<\/span>/);
    assert.match(unconfirmed, / · sent <time/);
    assert.ok(unconfirmed.includes('its answer never came'), 'the reason is shown');
    assert.doesNotMatch(unconfirmed.replace(/<head>[\s\S]*<\/head>/, ''), /delivered/);
    const accepted = conversationPage(view(undefined));
    assert.match(accepted, /<span class="badge delivered">delivered<\/span>/);
    assert.match(accepted, / · delivered <time/);
  });
});
