/** Turns a step rule's violation (its type for the channel, the placeholder rule) into the catalog error the interface names. */
import type { CatalogError } from 'mcpyard';
import type { StepType } from '../../generated/types.gen.ts';
import { stepTypeViolation, type Channel } from '../domain/channels.ts';
import { checkStep, type StepText, type StepViolation } from '../domain/placeholders.ts';
import { KNOWN_PLACEHOLDERS } from '../domain/placeholders.ts';

export interface StepErrors {
  STEP_FALLBACK_MISSING(p: { step: number; step_name: string }): CatalogError;
  UNKNOWN_PLACEHOLDER(p: { step: number; step_name: string; placeholder: string; known: string }): CatalogError;
  FALLBACK_HAS_PLACEHOLDER(p: { step: number; step_name: string; placeholders: string }): CatalogError;
  STEP_TYPE_NOT_FOR_CHANNEL(p: { step: number; step_name: string; type: string; channel: string; allowed: string }): CatalogError;
  SUBJECT_FALLBACK_MISSING(p: { step: number; step_name: string }): CatalogError;
  SUBJECT_UNKNOWN_PLACEHOLDER(p: { step: number; step_name: string; placeholder: string; known: string }): CatalogError;
}

/**
 * The first rule a campaign's steps break, in order, as its catalog error: each step's type must
 * be one the profile's channel sends, and its text must follow the placeholder rule.
 */
export function stepsError(
  errors: StepErrors,
  channel: Channel,
  steps: readonly (StepText & { type: StepType })[],
  firstPosition = 1,
): CatalogError | undefined {
  for (let i = 0; i < steps.length; i++) {
    const position = firstPosition + i;
    const wrongType = stepTypeViolation(channel, steps[i]!, position);
    if (wrongType) return errors.STEP_TYPE_NOT_FOR_CHANNEL({ ...wrongType, allowed: wrongType.allowed.join(', ') });
    const violation = checkStep(steps[i]!, position);
    if (violation) return stepViolationError(errors, violation);
  }
  return undefined;
}

export function stepViolationError(errors: StepErrors, v: StepViolation): CatalogError {
  switch (v.kind) {
    case 'fallback_missing':
      return errors.STEP_FALLBACK_MISSING({ step: v.step, step_name: v.step_name });
    case 'unknown_placeholder':
      return errors.UNKNOWN_PLACEHOLDER({
        step: v.step,
        step_name: v.step_name,
        placeholder: v.placeholder,
        known: knownList(),
      });
    case 'fallback_has_placeholder':
      return errors.FALLBACK_HAS_PLACEHOLDER({ step: v.step, step_name: v.step_name, placeholders: v.placeholders.join(', ') });
    case 'subject_fallback_missing':
      return errors.SUBJECT_FALLBACK_MISSING({ step: v.step, step_name: v.step_name });
    case 'subject_unknown_placeholder':
      return errors.SUBJECT_UNKNOWN_PLACEHOLDER({ step: v.step, step_name: v.step_name, placeholder: v.placeholder, known: knownList() });
  }
}

export interface MessageErrors {
  MESSAGE_FALLBACK_MISSING(): CatalogError;
  MESSAGE_UNKNOWN_PLACEHOLDER(p: { placeholder: string; known: string }): CatalogError;
  MESSAGE_FALLBACK_HAS_PLACEHOLDER(p: { placeholders: string }): CatalogError;
  MESSAGE_SUBJECT_FALLBACK_MISSING(): CatalogError;
  MESSAGE_SUBJECT_UNKNOWN_PLACEHOLDER(p: { placeholder: string; known: string }): CatalogError;
}

/** The same rule for a message's own text and subject (send_message, preview_message with text). */
export function messageViolationError(errors: MessageErrors, v: StepViolation): CatalogError {
  switch (v.kind) {
    case 'fallback_missing':
      return errors.MESSAGE_FALLBACK_MISSING();
    case 'unknown_placeholder':
      return errors.MESSAGE_UNKNOWN_PLACEHOLDER({ placeholder: v.placeholder, known: knownList() });
    case 'fallback_has_placeholder':
      return errors.MESSAGE_FALLBACK_HAS_PLACEHOLDER({ placeholders: v.placeholders.join(', ') });
    case 'subject_fallback_missing':
      return errors.MESSAGE_SUBJECT_FALLBACK_MISSING();
    case 'subject_unknown_placeholder':
      return errors.MESSAGE_SUBJECT_UNKNOWN_PLACEHOLDER({ placeholder: v.placeholder, known: knownList() });
  }
}

function knownList(): string {
  return [...KNOWN_PLACEHOLDERS.map((p) => `{${p}}`), '{custom.<field>}'].join(', ');
}

/** A message's own text and subject as a one-step draft, checked by the campaign rule (send_message, preview_message). */
export function checkedMessageDraft(
  errors: MessageErrors,
  args: { text: string; subject?: string; fallback_text?: string; auto_fallback?: boolean },
): StepText {
  const draft = {
    name: 'message',
    text: args.text,
    ...(args.subject !== undefined && { subject: args.subject }),
    ...(args.fallback_text !== undefined && { fallback_text: args.fallback_text }),
    auto_fallback: args.auto_fallback ?? false,
  };
  const violation = checkStep(draft, 1);
  if (violation) throw messageViolationError(errors, violation);
  return draft;
}
