/**
 * The one test for "a JSON object" (not null, not an array) that the generator and the runtime
 * share: a parsed body, a YAML mapping and a schema node are all checked the same way.
 */
export const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
