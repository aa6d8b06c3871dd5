/**
 * The attack suite in every test run, all of it (as `npm run attack` runs it): on each store, every
 * attack of the catalogue, one test each, against the server `npm start` runs on a real port. A
 * test fails with what got through; the figures per front are printed at the end.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { serverBackends } from '../helpers/outreach.ts';
import { report, runAttacks, type AttackOutcome } from './attack.ts';
import { catalogue } from './catalogue.ts';
import { startTarget, type Target } from './target.ts';

const attacks = catalogue();

for (const backend of await serverBackends()) {
  describe(`attacks on ${backend.kind}`, { skip: backend.skip }, () => {
    let target: Target;
    const outcomes: AttackOutcome[] = [];
    before(async () => {
      target = await startTarget(backend.kind);
    });
    after(async () => {
      await target?.close();
      console.log(report(outcomes, `${outcomes.length} of ${catalogue().length} attacks on ${backend.kind}:`).replace(/^/gm, '# '));
    });

    // In order: some attacks change what later ones see (a key rotation, a spent limit).
    for (const attack of attacks)
      test(`[${attack.front}] ${attack.name}`, async () => {
        const [outcome] = await runAttacks([attack], target);
        outcomes.push(outcome!);
        assert.equal(outcome!.problem, undefined, `${attack.name}\n  expected: ${attack.expects}\n  ${outcome!.problem}`);
      });
  });
}
