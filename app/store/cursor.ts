/** Opaque pagination cursors: the sort key of the last row, base64url-encoded. */
import { InvalidCursorError } from '../domain/errors.ts';

export function encodeCursor(parts: readonly string[]): string {
  return Buffer.from(JSON.stringify(parts)).toString('base64url');
}

export function decodeCursor(cursor: string, length: number): string[] {
  try {
    const parts = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(parts) && parts.length === length && parts.every((p) => typeof p === 'string')) return parts as string[];
  } catch {
    // fall through
  }
  throw new InvalidCursorError();
}
