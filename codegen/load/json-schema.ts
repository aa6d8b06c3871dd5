/** A JSON Schema as it appears in tools.yaml (2020-12); kept loose on purpose. */
export type JSONSchema = { [key: string]: unknown };
