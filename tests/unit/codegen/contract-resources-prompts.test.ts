/** codegen/contract/resources-prompts.ts: which changes to resources, prompts and apps break clients, and which do not. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { appBreaks, promptBreaks, resourceBreaks, type PromptContract, type ResourceContract } from '../../../codegen/contract/resources-prompts.ts';

const campaign: ResourceContract = { address: 'outreach://profiles/{profile_id}/campaigns/{campaign_id}', mimeType: 'application/json', scopes: ['mcp:read'] };
const plan: PromptContract = { arguments: { profile_id: { required: true }, goal: { required: true }, audience: { required: false } }, scopes: ['mcp:read'] };

test('resources: removed, moved, retyped or needing a new scope break; a new resource does not', () => {
  assert.deepEqual(resourceBreaks({ campaign }, { campaign, other: { address: 'x://y', scopes: [] } }), []);
  const breaks = resourceBreaks(
    { campaign, gone: { address: 'x://gone', scopes: [] } },
    { campaign: { address: 'outreach://campaigns/{campaign_id}', mimeType: 'text/plain', scopes: ['mcp:read', 'profile'] } },
  );
  assert.deepEqual(
    breaks.map((b) => b.where),
    ['resource campaign', 'resource campaign', 'resource campaign, scopes', 'resource gone'],
  );
  assert.match(breaks[0]!.message, /^URI changed from outreach:\/\/profiles/);
});

test('prompts: removed, an argument removed or newly required, a new scope break; a new optional argument does not', () => {
  const widened: PromptContract = { ...plan, arguments: { ...plan.arguments, tone: { required: false } } };
  assert.deepEqual(promptBreaks({ plan }, { plan: widened }), []);
  const breaks = promptBreaks(
    { plan, gone: { arguments: {}, scopes: [] } },
    {
      plan: {
        arguments: { profile_id: { required: true }, goal: { required: true }, audience: { required: true }, tone: { required: true } },
        scopes: ['mcp:read', 'mcp:write'],
      },
    },
  );
  assert.deepEqual(
    breaks.map((b) => `${b.where}: ${b.message.split(';')[0]}`),
    [
      'prompt gone: prompt removed',
      'prompt plan, argument audience: now required',
      'prompt plan, argument tone: new required argument',
      'prompt plan, scopes: now requires scope mcp:write',
    ],
  );
});

test("apps: removed or moved break (hosts read a rendered result's app again); a new app does not", () => {
  const review = { uri: 'ui://outreach/campaign-review' };
  assert.deepEqual(appBreaks({ review }, { review, other: { uri: 'ui://outreach/other' } }), []);
  const breaks = appBreaks({ review, gone: { uri: 'ui://outreach/gone' } }, { review: { uri: 'ui://outreach/review' } });
  assert.deepEqual(
    breaks.map((b) => `${b.where}: ${b.message}`),
    [
      'app gone: app removed; hosts that rendered a result in ui://outreach/gone get resource-not-found',
      'app review: URI changed from ui://outreach/campaign-review to ui://outreach/review; hosts that kept the old one get resource-not-found',
    ],
  );
});
