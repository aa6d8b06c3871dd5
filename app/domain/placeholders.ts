/**
 * Personalization placeholders in step text: `{name}`, `{company}`, ... and custom lead fields as
 * `{custom.<field>}`. The interface's rule: a step whose text uses placeholders needs
 * `fallback_text` unless `auto_fallback` is true. A subject is personalised the same way; having no
 * fallback text of its own, its placeholders need `auto_fallback`.
 */

/** Built-in placeholders and the generic text `auto_fallback` puts in place of an unknown value. */
export const AUTO_REPLACEMENTS: Readonly<Record<string, string>> = {
  name: 'there',
  first_name: 'there',
  last_name: '',
  company: 'your company',
  position: 'your role',
  title: 'your role',
  location: 'your area',
  industry: 'your industry',
};

export const KNOWN_PLACEHOLDERS = Object.keys(AUTO_REPLACEMENTS);
const CUSTOM_PREFIX = 'custom.';
const PLACEHOLDER = /\{([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+)?)\}/g;

/** The placeholders a text uses, in order of first appearance. */
export function placeholdersIn(text: string): string[] {
  return [...new Set([...text.matchAll(PLACEHOLDER)].map((m) => m[1]!))];
}

export function isKnownPlaceholder(name: string): boolean {
  // Object.hasOwn, not `in`: {constructor} or {toString} must be unknown, not inherited.
  return Object.hasOwn(AUTO_REPLACEMENTS, name) || (name.startsWith(CUSTOM_PREFIX) && name.length > CUSTOM_PREFIX.length);
}

export interface StepText {
  name: string;
  text: string;
  /** Personalised like the text; its fallback is auto_fallback's generic words (a subject has no fallback_text). */
  subject?: string | null;
  fallback_text?: string | null;
  auto_fallback?: boolean;
}

export type StepViolation =
  | { kind: 'unknown_placeholder'; step: number; step_name: string; placeholder: string }
  | { kind: 'fallback_missing'; step: number; step_name: string }
  | { kind: 'fallback_has_placeholder'; step: number; step_name: string; placeholders: string[] }
  | { kind: 'subject_unknown_placeholder'; step: number; step_name: string; placeholder: string }
  | { kind: 'subject_fallback_missing'; step: number; step_name: string };

/** The first rule a step breaks (steps numbered from 1 in campaign order), or undefined. */
export function checkStep(step: StepText, position: number): StepViolation | undefined {
  const used = placeholdersIn(step.text);
  const unknown = used.find((p) => !isKnownPlaceholder(p));
  if (unknown) return { kind: 'unknown_placeholder', step: position, step_name: step.name, placeholder: `{${unknown}}` };
  if (used.length && !step.fallback_text && step.auto_fallback !== true) return { kind: 'fallback_missing', step: position, step_name: step.name };
  const inFallback = step.fallback_text ? placeholdersIn(step.fallback_text) : [];
  if (inFallback.length) return { kind: 'fallback_has_placeholder', step: position, step_name: step.name, placeholders: inFallback.map((p) => `{${p}}`) };
  return checkSubject(step, position);
}

/** The subject's rule: known placeholders only, and auto_fallback to fill them for a lead without the value. */
function checkSubject(step: StepText, position: number): StepViolation | undefined {
  const used = step.subject ? placeholdersIn(step.subject) : [];
  const unknown = used.find((p) => !isKnownPlaceholder(p));
  if (unknown) return { kind: 'subject_unknown_placeholder', step: position, step_name: step.name, placeholder: `{${unknown}}` };
  if (used.length && step.auto_fallback !== true) return { kind: 'subject_fallback_missing', step: position, step_name: step.name };
  return undefined;
}

export type LeadValues = Readonly<Record<string, string | null | undefined>>;

/**
 * Renders a step for a lead: every used value known -> the text filled in; otherwise the
 * fallback text, or with auto_fallback the generic replacements. Lists what was unresolved.
 */
export function renderStep(step: StepText, lead: LeadValues | undefined): { text: string; unresolved: string[] } {
  const value = (p: string) => leadValue(lead, p);
  const unresolved = unresolvedIn(step.text, lead);
  if (!unresolved.length) return { text: fill(step.text, (p) => value(p)!), unresolved };
  if (step.fallback_text) return { text: step.fallback_text, unresolved };
  if (step.auto_fallback) return { text: fill(step.text, (p) => value(p) ?? (Object.hasOwn(AUTO_REPLACEMENTS, p) ? AUTO_REPLACEMENTS[p]! : '')), unresolved };
  return { text: step.text, unresolved };
}

/** The placeholders of a text this lead has no value for, as written ("{company}"). */
export function unresolvedIn(text: string, lead: LeadValues | undefined): string[] {
  return placeholdersIn(text)
    .filter((p) => leadValue(lead, p) === undefined)
    .map((p) => `{${p}}`);
}

/** Which text a rendered step is: the personalised one, or the fallback that stood in for an unknown value. */
export function renderedSource(step: StepText, unresolved: readonly string[]): 'personalized' | 'fallback_text' | 'auto_fallback' {
  return unresolved.length === 0 ? 'personalized' : step.fallback_text ? 'fallback_text' : 'auto_fallback';
}

/**
 * A step's subject for a lead: its placeholders filled with the lead's values, and where a value is
 * unknown with auto_fallback's generic words (also for a subject stored before subjects were
 * checked: never a literal "{first_name}" in someone's inbox).
 */
export function renderSubject(subject: string | null | undefined, lead: LeadValues | undefined): string | undefined {
  if (subject === null || subject === undefined) return undefined;
  return fill(subject, (p) => leadValue(lead, p) ?? (Object.hasOwn(AUTO_REPLACEMENTS, p) ? AUTO_REPLACEMENTS[p]! : ''));
}

function leadValue(lead: LeadValues | undefined, p: string): string | undefined {
  const v = lead && Object.hasOwn(lead, p) ? lead[p] : undefined;
  return typeof v === 'string' && v.trim() !== '' ? v : undefined;
}

function fill(text: string, value: (placeholder: string) => string): string {
  return text.replace(PLACEHOLDER, (whole, p: string) => (isKnownPlaceholder(p) ? value(p) : whole));
}
