/** Payloads the conformance scenarios expect, shared by the fixture handlers. */
import { setTimeout as sleep } from 'node:timers/promises';

/** A 1x1 red PNG. */
export const PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';

/** A WAV file with one 16-bit mono sample. */
export const WAV_BASE64 = 'UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=';

/** The pause between notifications the scenarios describe (~50 ms); ends early when the call is aborted. */
export function pause(signal: AbortSignal, ms = 50): Promise<void> {
  return sleep(ms, undefined, { signal });
}
