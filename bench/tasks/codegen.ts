/**
 * (d): one cold generator run in a fresh process, as `npm run gen` would do it: import the
 * pipeline (codegen/generate.ts, which loads ajv, json-schema-to-typescript, prettier), then
 * generate(file, check). Env: BENCH_TOOLS_YAML, BENCH_CHECK=1 for --check mode.
 * Message: `done` {importMs, generateMs, atExitMs, tools, changed, removed}.
 */
import { send } from '../lib/children.ts';

const file = process.env.BENCH_TOOLS_YAML!;
const check = process.env.BENCH_CHECK === '1';
const t0 = performance.now();
const { generate } = await import('../../codegen/generate.ts');
const t1 = performance.now();
const { model, changed, removed } = await generate(file, check);
const t2 = performance.now();
send('done', { importMs: t1 - t0, generateMs: t2 - t1, atExitMs: t2, tools: model.tools.length, changed: changed.length, removed: removed.length });
