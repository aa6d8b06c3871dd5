/**
 * `npm run attack`: starts the real server on a real port (SQLite; ATTACK_STORE=postgres, or
 * ATTACK_STORE=sqlite,postgres for both), runs every attack of the catalogue against it, prints
 * each one as it ends and then the figures per front, and exits non-zero if any got through.
 */
import type { DbKind } from '../../app/store/db/database.ts';
import { report, runAttacks } from './attack.ts';
import { catalogue } from './catalogue.ts';
import { surfacesWithoutIds } from './isolation-attacks.ts';
import { startTarget } from './target.ts';

const stores = (process.env.ATTACK_STORE ?? 'sqlite').split(',').map((s) => s.trim()) as DbKind[];

let failed = false;
for (const store of stores) {
  const started = performance.now();
  const target = await startTarget(store);
  try {
    const outcomes = await runAttacks(catalogue(), target, (o) => console.log(`${o.problem ? '✗' : '✓'} [${o.front}] ${o.name}`));
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    console.log(`\n${report(outcomes, `Attacks on ${store} (${seconds} s):`)}`);
    console.log(`No id argument (their answers checked for the other account's data instead): ${surfacesWithoutIds().join(', ')}\n`);
    failed ||= outcomes.some((o) => o.problem);
  } finally {
    await target.close();
  }
}
process.exitCode = failed ? 1 : 0;
