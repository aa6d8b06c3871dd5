/**
 * app/domain/placeholders.ts: which placeholders a step uses, the fallback rule of the interface
 * (first offending step wins, steps counted from 1), and rendering a step for a lead.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  AUTO_REPLACEMENTS,
  checkStep,
  isKnownPlaceholder,
  KNOWN_PLACEHOLDERS,
  placeholdersIn,
  renderStep,
  renderSubject,
} from '../../../app/domain/placeholders.ts';

describe('placeholdersIn', () => {
  test('lists each placeholder once, in order of first appearance', () => {
    assert.deepEqual(placeholdersIn('Hi {name}, {company} and {name} again; {custom.deal_size}'), ['name', 'company', 'custom.deal_size']);
  });

  test('ignores text that is not a placeholder', () => {
    assert.deepEqual(placeholdersIn('No placeholders here'), []);
    assert.deepEqual(placeholdersIn('{} { name } {1st} {a-b} {{'), []);
  });

  test('finds unknown names too (checking them is a separate rule)', () => {
    assert.deepEqual(placeholdersIn('Hello {nmae}'), ['nmae']);
  });
});

describe('isKnownPlaceholder', () => {
  test('accepts the built-ins and custom.<field>, rejects the rest', () => {
    for (const p of ['name', 'first_name', 'last_name', 'company', 'position', 'title', 'location', 'industry']) assert.ok(isKnownPlaceholder(p), p);
    assert.deepEqual([...KNOWN_PLACEHOLDERS].sort(), ['company', 'first_name', 'industry', 'last_name', 'location', 'name', 'position', 'title']);
    assert.ok(isKnownPlaceholder('custom.field'));
    assert.ok(!isKnownPlaceholder('custom.'));
    assert.ok(!isKnownPlaceholder('nmae'));
    assert.ok(!isKnownPlaceholder('other.field'));
  });
});

describe('checkStep', () => {
  test('plain text needs no fallback', () => {
    assert.equal(checkStep({ name: 'Plain', text: 'Hello there' }, 1), undefined);
  });

  test('placeholders without fallback_text and without auto_fallback break the rule', () => {
    assert.deepEqual(checkStep({ name: 'Intro', text: 'Hi {name}' }, 4), { kind: 'fallback_missing', step: 4, step_name: 'Intro' });
    assert.deepEqual(checkStep({ name: 'Intro', text: 'Hi {name}', fallback_text: null, auto_fallback: false }, 1), {
      kind: 'fallback_missing',
      step: 1,
      step_name: 'Intro',
    });
    assert.deepEqual(checkStep({ name: 'Intro', text: 'Hi {name}', fallback_text: '' }, 1)?.kind, 'fallback_missing', 'an empty fallback is no fallback');
  });

  test('fallback_text or auto_fallback satisfies the rule', () => {
    assert.equal(checkStep({ name: 'A', text: 'Hi {name}', fallback_text: 'Hi there' }, 1), undefined);
    assert.equal(checkStep({ name: 'B', text: 'Hi {name} at {company}', auto_fallback: true }, 1), undefined);
  });

  test('custom fields are accepted placeholders', () => {
    assert.equal(checkStep({ name: 'C', text: 'About {custom.deal_size}', fallback_text: 'About your deal' }, 1), undefined);
    assert.equal(checkStep({ name: 'C', text: 'About {custom.deal_size}' }, 2)?.kind, 'fallback_missing');
  });

  test('an unknown placeholder is reported before the fallback rule, with braces', () => {
    assert.deepEqual(checkStep({ name: 'Typo', text: 'Hi {nmae} at {company}', auto_fallback: true }, 2), {
      kind: 'unknown_placeholder',
      step: 2,
      step_name: 'Typo',
      placeholder: '{nmae}',
    });
    assert.deepEqual(checkStep({ name: 'Typo', text: 'Hi {name} from {planet}' }, 1), {
      kind: 'unknown_placeholder',
      step: 1,
      step_name: 'Typo',
      placeholder: '{planet}',
    });
  });

  test('placeholders inside fallback_text are rejected, all of them listed', () => {
    assert.deepEqual(checkStep({ name: 'F', text: 'Hi {name}', fallback_text: 'Hi {first_name} from {company}' }, 3), {
      kind: 'fallback_has_placeholder',
      step: 3,
      step_name: 'F',
      placeholders: ['{first_name}', '{company}'],
    });
    assert.equal(
      checkStep({ name: 'F', text: 'Plain', fallback_text: 'Hi {name}' }, 1)?.kind,
      'fallback_has_placeholder',
      'even when the text itself uses none',
    );
  });
});

describe('renderStep', () => {
  const step = { name: 'Intro', text: 'Hi {name}, how is {company}? ({custom.city})' };

  test('a lead with every value gets the text filled in', () => {
    assert.deepEqual(renderStep({ ...step, fallback_text: 'Hi!' }, { name: 'Ada', company: 'Analytical', 'custom.city': 'London' }), {
      text: 'Hi Ada, how is Analytical? (London)',
      unresolved: [],
    });
  });

  test('a missing or blank value switches to fallback_text and lists what was unresolved', () => {
    assert.deepEqual(renderStep({ ...step, fallback_text: 'Hi, how is business?' }, { name: 'Ada', company: '  ', 'custom.city': null }), {
      text: 'Hi, how is business?',
      unresolved: ['{company}', '{custom.city}'],
    });
  });

  test('auto_fallback puts generic text in place of unknown values and keeps known ones', () => {
    assert.deepEqual(renderStep({ name: 'A', text: 'Hi {name}, how is {company}?', auto_fallback: true }, undefined), {
      text: 'Hi there, how is your company?',
      unresolved: ['{name}', '{company}'],
    });
    assert.deepEqual(renderStep({ name: 'A', text: 'Hi {name}, how is {company}?', auto_fallback: true }, { name: 'Ada' }), {
      text: 'Hi Ada, how is your company?',
      unresolved: ['{company}'],
    });
    assert.equal(renderStep({ name: 'A', text: 'In {location}, as {position}: {custom.x}.', auto_fallback: true }, {}).text, 'In your area, as your role: .');
  });

  test('the documented replacements', () => {
    assert.equal(AUTO_REPLACEMENTS.name, 'there');
    assert.equal(AUTO_REPLACEMENTS.company, 'your company');
  });

  test('fallback_text wins over auto_fallback when both are set', () => {
    assert.equal(renderStep({ name: 'A', text: 'Hi {name}', fallback_text: 'Hello!', auto_fallback: true }, {}).text, 'Hello!');
  });

  test('text without placeholders renders as is', () => {
    assert.deepEqual(renderStep({ name: 'A', text: 'Hello {not a placeholder}' }, {}), { text: 'Hello {not a placeholder}', unresolved: [] });
  });
});

test('names every object inherits are not placeholders: {constructor} and {toString} are unknown', () => {
  for (const name of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
    const v = checkStep({ name: 'S', text: `Hi {${name}}`, auto_fallback: true }, 1);
    assert.equal(v?.kind, 'unknown_placeholder', name);
  }
});

describe('subjects (issue 28)', () => {
  const step = { name: 'Intro', text: 'Hello there.', subject: 'Hello {first_name} at {company}' };

  test('a subject with placeholders needs auto_fallback: its message says "subject", the text rule is unchanged', () => {
    assert.deepEqual(checkStep({ ...step, fallback_text: 'Hi there!' }, 2), { kind: 'subject_fallback_missing', step: 2, step_name: 'Intro' });
    assert.equal(checkStep({ ...step, auto_fallback: true }, 1), undefined);
    assert.equal(checkStep({ name: 'Plain', text: 'Hi.', subject: 'A short note' }, 1), undefined);
    // The text's own rule comes first, with its own message.
    assert.equal(checkStep({ ...step, text: 'Hi {name}' }, 1)?.kind, 'fallback_missing');
  });

  test("an unknown placeholder in a subject is named as the subject's", () => {
    assert.deepEqual(checkStep({ name: 'Intro', text: 'Hi.', subject: 'Re {nmae}', auto_fallback: true }, 1), {
      kind: 'subject_unknown_placeholder',
      step: 1,
      step_name: 'Intro',
      placeholder: '{nmae}',
    });
  });

  test('a subject is filled from the lead, else with the generic words; no subject stays none', () => {
    assert.equal(renderSubject(step.subject, { first_name: 'Grace', company: 'Navy' }), 'Hello Grace at Navy');
    assert.equal(renderSubject(step.subject, { first_name: 'Grace' }), 'Hello Grace at your company');
    assert.equal(renderSubject(step.subject, undefined), 'Hello there at your company');
    assert.equal(renderSubject('Hi {custom.team}', { 'custom.team': 'Blue' }), 'Hi Blue');
    assert.equal(renderSubject(null, { first_name: 'Grace' }), undefined);
  });
});
