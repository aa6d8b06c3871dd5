/**
 * Reading a parsed tools.yaml defensively: the reference checks run even when the file's own
 * schema found problems, so they take only the parts that have the right shape.
 */
import { isPlainObject } from '../../core/plain-object.ts';

/** Locale-independent ordering, so that generated output is the same on every machine. */
export const byCodePoint = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The strings of a list (nothing else in it, and no list at all, count as none). */
export const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/** The entries of a section that are objects (the file's own schema reports the rest). */
export function section<T = Record<string, unknown>>(value: unknown): [string, T][] {
  return Object.entries(isPlainObject(value) ? value : {}).filter(([, x]) => isPlainObject(x)) as [string, T][];
}
