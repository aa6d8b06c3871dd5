/**
 * ES modules of compiled validators, each compiled function in one module only. ajv's own
 * standaloneCode puts into a module every function its exports call, so a shared shape used by
 * twenty tools would be compiled into twenty modules; here a call to a validator that another
 * module exports (a shared `$defs` entry) becomes an import of that module instead. The code of
 * each function is ajv's, as its standalone mode writes it (this follows
 * ajv/lib/standalone/index.ts, with the other modules' validators marked as already written).
 */
import type { Ajv2020 } from 'ajv/dist/2020.js';
import { _Code } from 'ajv/dist/compile/codegen/code.js';
import { UsedValueState, type UsedScopeValues, type ValueScopeName } from 'ajv/dist/compile/codegen/scope.js';
import type { SchemaEnv } from 'ajv/dist/compile/index.js';
import type { AnyValidateFunction, SourceCode } from 'ajv/dist/types/index.js';

/** A validator of the module: its export name and the id it was compiled under. */
export interface ModuleExport {
  name: string;
  id: string;
}

/** A validator another module exports, imported when this module's code calls it. */
export interface ImportedValidator extends ModuleExport {
  /** Import specifier of the module that exports it. */
  from: string;
}

/** The ESM source of a module exporting `exports`, importing the `imported` validators it calls. */
export function validatorModule(ajv: Ajv2020, exports: readonly ModuleExport[], imported: readonly ImportedValidator[]): string {
  const getValidate = (id: string): AnyValidateFunction => {
    const v = ajv.getSchema(id);
    if (!v?.source) throw new Error(`no compiled schema with id ${id}`);
    return v;
  };
  const usedValues: UsedScopeValues = {};
  const outside = new Map<ValueScopeName, ImportedValidator>();
  for (const i of imported) outside.set(getValidate(i.id).source!.validateName, i);
  // Written elsewhere: scopeCode skips them, and the code calls them by name.
  usedValues.validate = new Map([...outside.keys()].map((n) => [n, UsedValueState.Completed]));

  const usedState = (name: ValueScopeName) => usedValues[name.prefix]?.get(name);
  const validateCode = (s: SourceCode | undefined): string => {
    if (!s) throw new Error('a compiled validator without source code (the ajv instance needs code.source)');
    if (usedState(s.validateName) === UsedValueState.Completed) return '';
    (usedValues.validate ??= new Map()).set(s.validateName, UsedValueState.Started);
    const refCode = (n: ValueScopeName): _Code | undefined => {
      const ref = n.value?.ref;
      if (n.prefix === 'validate' && typeof ref == 'function') return new _Code(validateCode((ref as AnyValidateFunction).source));
      if ((n.prefix === 'root' || n.prefix === 'wrapper') && typeof ref == 'object') {
        const { validate, validateName } = ref as SchemaEnv;
        if (!validateName) throw new Error('ajv internal error: a wrapper without its validator');
        const wrapper = `const ${n.str} = {validate: ${validateName.str}};`;
        if (usedState(validateName) === UsedValueState.Started) return new _Code(wrapper);
        return new _Code(`${wrapper}\n${validateCode(validate?.source)}`);
      }
      return undefined;
    };
    const scopeCode = ajv.scope.scopeCode(s.scopeValues, usedValues, refCode).toString();
    const code = `${scopeCode}\n${s.validateCode}`;
    return s.evaluated ? `${code}${s.validateName.str}.evaluated = ${s.evaluated.toString()};\n` : code;
  };

  let body = '';
  for (const e of exports) {
    const v = getValidate(e.id);
    body += `\nexport const ${e.name} = ${v.source!.validateName.str};\n${validateCode(v.source)}`;
  }
  // Every name ajv gave a value of its scope (functions, schemas, patterns, formats) that this module writes or calls.
  const scoped = new Map<string, ValueScopeName>();
  for (const names of Object.values(usedValues)) for (const name of names?.keys() ?? []) scoped.set(name.str, name);
  const { code, used } = renumber(body, scoped, new Map([...outside].map(([name, i]) => [name.str, i.name])));
  const imports = [...outside.values()].filter((i) => used.has(i.name)).map((i) => `import { ${i.name} } from ${JSON.stringify(i.from)};\n`);
  return esmImports(imports.join('') + code);
}

/** A string literal (ajv writes double quotes; single for safety), or an identifier not after a dot (a property). */
const TOKENS = /"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|(?<![\w$.])[A-Za-z_$][\w$]*/g;

/**
 * The module's code with ajv's scope names numbered from 0 in the order they first appear in it
 * (ajv numbers them across every schema it compiled, so adding a tool renamed functions in the
 * modules of unrelated tools), and the other modules' validators called by their export names.
 * String literals (instance paths, schema JSON) are left as they are.
 */
function renumber(code: string, scoped: ReadonlyMap<string, ValueScopeName>, exported: ReadonlyMap<string, string>): { code: string; used: Set<string> } {
  const renamed = new Map<string, string>();
  const counters = new Map<string, number>();
  const used = new Set<string>();
  const out = code.replace(TOKENS, (token) => {
    const name = scoped.get(token);
    if (!name) return token;
    let next = renamed.get(token);
    if (next === undefined) {
      next = exported.get(token);
      if (next === undefined) {
        const n = counters.get(name.prefix) ?? 0;
        counters.set(name.prefix, n + 1);
        next = `${name.prefix}${n}`;
      }
      renamed.set(token, next);
    }
    used.add(next);
    return next;
  });
  return { code: out, used };
}

/** ajv's ESM output still `require`s its runtime helpers; turn those into imports. */
function esmImports(code: string): string {
  const modules = new Map<string, string>();
  const body = code.replace(/require\("([^"]+)"\)/g, (_, mod: string) => {
    const spec = mod.endsWith('.js') ? mod : `${mod}.js`;
    if (!modules.has(spec)) modules.set(spec, `runtime${modules.size}`);
    return modules.get(spec)!;
  });
  const imports = [...modules].map(([spec, name]) => `import ${name} from ${JSON.stringify(spec)};\n`).join('');
  return imports + body;
}
