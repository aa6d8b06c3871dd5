/** Payloads the conformance scenarios expect, shared by the fixture handlers. */
import { setTimeout as sleep } from 'node:timers/promises';
import type { ContentBlock, ElicitRequest } from 'mcpyard';

/** A 1x1 red PNG. */
export const PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';

/** A WAV file with one 16-bit mono sample. */
export const WAV_BASE64 = 'UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=';

/** The pause between notifications the scenarios describe (~50 ms); ends early when the call is aborted. */
export function pause(signal: AbortSignal, ms = 50): Promise<void> {
  return sleep(ms, undefined, { signal });
}

/** The name question of the input-required scenarios (SEP-2322). */
export const NAME_QUESTION: ElicitRequest = {
  message: 'What is your name?',
  requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
};

/** The confirmation question of the request-state scenarios. */
export const CONFIRM_QUESTION: ElicitRequest = {
  message: 'Please confirm',
  requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
};

/** The text of a sampled answer, or its JSON when it is not text. */
export function textOf(content: ContentBlock): string {
  return content.type === 'text' ? content.text : JSON.stringify(content);
}
