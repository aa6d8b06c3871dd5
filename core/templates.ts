/** Message templates of the error catalog: `{{param}}` slots filled from an error's params. */

export type ErrorParamValues = Record<string, string | number>;

const PARAM = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

/** Fills `{{param}}` slots; single braces such as `{name}` stay literal. */
export function renderTemplate(template: string, params: ErrorParamValues): string {
  return template.replace(PARAM, (_, name: string) => (name in params ? String(params[name]) : `{{${name}}}`));
}
