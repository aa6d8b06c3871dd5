/**
 * The error catalog of tools.yaml: the framework's errors (core/framework-errors.ts) merged with
 * the file's own, each message's parameters, and the restatements a file may not make.
 */
import { frameworkErrors } from '../../core/framework-errors.ts';
import type { ErrorModel, ParamType } from './model.ts';

type Path = (string | number)[];

export interface RawError {
  message: string;
  surface: ErrorModel['surface'];
  status?: number;
  code?: number;
  remedy?: string;
  params?: Record<string, ParamType>;
}

const TEMPLATE_PARAM = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

/** Parameter names of a message template, in order of first appearance. */
export function templateParams(template: string): string[] {
  return [...new Set([...template.matchAll(TEMPLATE_PARAM)].map((m) => m[1]!))];
}

/** The catalog: every framework error, restated or not, and every error the file declares. */
export function buildErrors(declared: Record<string, RawError>, atPath: (p: Path, m: string, key?: boolean) => void): ErrorModel[] {
  const merged: Record<string, RawError & { framework: boolean }> = {};
  for (const [code, e] of Object.entries(frameworkErrors)) merged[code] = { ...e, framework: true };
  for (const [code, e] of Object.entries(declared)) {
    const base = merged[code];
    if (base && base.surface !== e.surface)
      atPath(['errors', code, 'surface'], `error ${code} is raised by the runtime with surface ${base.surface}; it cannot be redeclared as ${e.surface}`);
    // What clients see besides the text is the runtime's: a restatement may change the message and
    // the remedy, not the HTTP status or the JSON-RPC code.
    if (base)
      for (const [key, shown] of [
        ['status', 'HTTP status'],
        ['code', 'JSON-RPC code'],
      ] as const)
        if (key in e && e[key] !== base[key])
          atPath(
            ['errors', code, key],
            `error ${code} is raised by the runtime with ${base[key] === undefined ? `no ${shown}` : `${shown} ${base[key]}`}; a restatement may change its message and remedy, not its ${shown} (${e[key]})`,
          );
    merged[code] = { ...base, ...e, framework: Boolean(base) };
  }
  const out: ErrorModel[] = [];
  for (const [code, e] of Object.entries(merged)) {
    const names = templateParams(e.message);
    const declaredParams = e.params ?? {};
    if (code in declared) {
      for (const p of Object.keys(declaredParams))
        if (!names.includes(p)) atPath(['errors', code, 'params', p], `error ${code} declares parameter ${p}, but its message never uses {{${p}}}`, true);
      if ((e.surface === 'auth' || e.surface === 'http') && e.status === undefined)
        atPath(['errors', code], `error ${code} has surface ${e.surface} and needs an HTTP status`, true);
    }
    out.push({
      code,
      message: e.message,
      surface: e.surface,
      ...(e.status !== undefined && { status: e.status }),
      ...(e.code !== undefined && { rpcCode: e.code }),
      ...(e.remedy !== undefined && { remedy: e.remedy }),
      params: names.map((name) => ({ name, type: declaredParams[name] ?? 'string' })),
      framework: e.framework,
    });
  }
  return out;
}
