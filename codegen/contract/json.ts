/** Small JSON helpers shared by the contract's parts. */
import { isPlainObject } from '../../core/plain-object.ts';

export type Json = unknown;

/** Own properties only: a tool or field called `constructor` must not find Object.prototype's. */
export function own<T>(record: Record<string, T> | undefined, key: string): T | undefined {
  return record && Object.hasOwn(record, key) ? record[key] : undefined;
}

/** JSON text with object keys sorted, so equal values have equal text. */
export function canonical(value: Json): string {
  return JSON.stringify(sortKeys(value));
}

export function sortKeys(value: Json): Json {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (!isPlainObject(value)) return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((k) => [k, sortKeys(value[k])]),
  );
}
