/**
 * The rules a campaign's steps follow before any write, in the order a tool checks them: each
 * step's type must be one its profile's channel sends, and its text must follow the placeholder
 * rule; the first step that breaks one is named, numbered from 1 in campaign order.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { STEP_TYPES_BY_CHANNEL, stepTypeViolation } from '../../../app/domain/channels.ts';
import { stepsError, type StepErrors } from '../../../app/tool-support/step-violations.ts';
import type { StepType } from '../../../generated/types.gen.ts';

/** Catalog errors as plain records of their code and parameters. */
const errors = new Proxy({} as StepErrors, {
  get: (_target, code: string) => (params: object) => ({ code, params }),
});

/** Every step type, as a record so that a type added to tools.yaml fails type-check here until it is listed. */
const EVERY_STEP_TYPE: Record<StepType, true> = { message: true, connection_request: true, email: true, inmail: true, follow_up: true };

const step = (name: string, type: StepType, text = 'Hello') => ({ name, type, text });

describe('step types by channel', () => {
  test('every step type is sent by at least one channel, and follow-ups by both', () => {
    const sent = new Set(Object.values(STEP_TYPES_BY_CHANNEL).flat());
    assert.deepEqual([...sent].sort(), Object.keys(EVERY_STEP_TYPE).sort());
    for (const types of Object.values(STEP_TYPES_BY_CHANNEL)) assert.ok((types as readonly string[]).includes('follow_up'));
  });

  test('a LinkedIn connection request on an email profile is refused, naming the channel and what it sends', () => {
    assert.deepEqual(stepTypeViolation('email', step('Connect', 'connection_request'), 2), {
      step: 2,
      step_name: 'Connect',
      type: 'connection_request',
      channel: 'email',
      allowed: ['email', 'follow_up'],
    });
    assert.equal(stepTypeViolation('linkedin', step('Connect', 'connection_request'), 1), undefined);
    assert.notEqual(stepTypeViolation('linkedin', step('Mail', 'email'), 1), undefined);
  });
});

describe('stepsError', () => {
  test('names the first offending step, whichever rule it breaks', () => {
    const steps = [step('Ok', 'email'), { ...step('Placeholder', 'email', 'Hi {company}') }, step('Wrong type', 'inmail')];
    assert.deepEqual(stepsError(errors, 'email', steps), { code: 'STEP_FALLBACK_MISSING', params: { step: 2, step_name: 'Placeholder' } });
    assert.deepEqual(stepsError(errors, 'email', [steps[0]!, steps[2]!, steps[1]!]), {
      code: 'STEP_TYPE_NOT_FOR_CHANNEL',
      params: { step: 2, step_name: 'Wrong type', type: 'inmail', channel: 'email', allowed: 'email, follow_up' },
    });
  });

  test('a step whose type and text are both wrong is named for its type first', () => {
    assert.equal((stepsError(errors, 'linkedin', [step('Both', 'email', 'Hi {nope}')]) as unknown as { code: string }).code, 'STEP_TYPE_NOT_FOR_CHANNEL');
  });

  test('counts from a given first position (a step added to a campaign), and finds nothing in good or no steps', () => {
    assert.deepEqual(stepsError(errors, 'linkedin', [step('New', 'message', 'Hi {name}')], 6), {
      code: 'STEP_FALLBACK_MISSING',
      params: { step: 6, step_name: 'New' },
    });
    assert.equal(stepsError(errors, 'linkedin', []), undefined);
    assert.equal(stepsError(errors, 'email', [step('A', 'follow_up'), { ...step('B', 'email', 'Hi {name}'), auto_fallback: true }]), undefined);
  });
});
