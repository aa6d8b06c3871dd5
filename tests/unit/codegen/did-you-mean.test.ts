/** codegen/load/did-you-mean.ts: the closest declared name to a misspelled one, or nothing when none is close. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { didYouMean, hint } from '../../../codegen/load/did-you-mean.ts';

const TOOL_KEYS = ['title', 'description', 'scopes', 'annotations', 'input', 'output', 'errors', 'examples'];

describe('didYouMean', () => {
  test('finds a missing, an extra, a swapped or a wrong letter', () => {
    assert.equal(didYouMean('scope', TOOL_KEYS), 'scopes');
    assert.equal(didYouMean('descripton', TOOL_KEYS), 'description');
    assert.equal(didYouMean('inputs', TOOL_KEYS), 'input');
    assert.equal(didYouMean('mcp:wirte', ['mcp:read', 'mcp:write', 'profile', 'service_account_id']), 'mcp:write');
    assert.equal(didYouMean('CAMPAIGN_NOT_FUOND', ['PROFILE_NOT_FOUND', 'CAMPAIGN_NOT_FOUND', 'STEP_NOT_FOUND']), 'CAMPAIGN_NOT_FOUND');
    assert.equal(didYouMean('exemples', TOOL_KEYS), 'examples');
  });

  test('ignores case', () => {
    assert.equal(didYouMean('Scopes', TOOL_KEYS), 'scopes');
    assert.equal(didYouMean('campaign_not_found', ['CAMPAIGN_NOT_FOUND']), 'CAMPAIGN_NOT_FOUND');
  });

  test('suggests nothing for an unrelated word', () => {
    assert.equal(didYouMean('foo', TOOL_KEYS), undefined);
    assert.equal(didYouMean('foo', ['scopes']), undefined);
    assert.equal(didYouMean('colour', TOOL_KEYS), undefined);
    assert.equal(didYouMean('mcp:admin', ['mcp:read', 'mcp:write']), undefined);
    assert.equal(didYouMean('x', ['y', 'z']), undefined);
    assert.equal(didYouMean('', ['a']), undefined);
    assert.equal(didYouMean('scope', []), undefined);
  });

  test('allows more edits in longer words: one per three letters', () => {
    assert.equal(didYouMean('descrptn', TOOL_KEYS), undefined, 'three edits in eight letters is too many');
    assert.equal(didYouMean('dscriptin', TOOL_KEYS), 'description', 'two edits in nine letters');
    assert.equal(didYouMean('scoops', TOOL_KEYS), 'scopes', 'two edits in six letters');
    assert.equal(didYouMean('scoop', TOOL_KEYS), undefined, 'two edits in five letters is too many');
  });

  test('takes the closest candidate, and the earlier one on a tie', () => {
    assert.equal(didYouMean('stat', ['start', 'stats']), 'start');
    assert.equal(didYouMean('stat', ['stats', 'start']), 'stats');
    assert.equal(didYouMean('erors', ['errorz', 'errors']), 'errors', 'errors is one edit away, errorz two');
    assert.equal(didYouMean('scopes', new Set(['scope', 'scopes'])), 'scopes', 'an exact match wins over an earlier near one');
  });
});

describe('hint', () => {
  test('is the text to append to a problem message, or empty', () => {
    assert.equal(hint('scope', TOOL_KEYS), ' (did you mean scopes?)');
    assert.equal(hint('foo', TOOL_KEYS), '');
  });
});
