/**
 * What an attack is, how one is judged, and the figures of a run. An attack names its front, says
 * what it expects (how the server must refuse it), and either resolves (refused as expected) or
 * throws a GotThrough that says exactly what the server let through. Any other error while an
 * attack runs counts against it too: an attack that cannot tell is not a refusal.
 */

export type Front = 'token' | 'isolation' | 'http' | 'web';
export const FRONTS: readonly Front[] = ['token', 'isolation', 'http', 'web'];

export interface Attack<Target> {
  front: Front;
  name: string;
  /** What the server must do, in a sentence: the refusal this attack waits for. */
  expects: string;
  /** Resolves when the server refused as expected; throws GotThrough (or anything else) otherwise. */
  run(target: Target): Promise<void>;
}

/** The loud failure: what the server did instead of refusing. */
export class GotThrough extends Error {
  override name = 'GotThrough';
}

/** Throws GotThrough with `what` unless `refused` holds. */
export function mustRefuse(refused: boolean, what: () => string): void {
  if (!refused) throw new GotThrough(what());
}

export interface AttackOutcome {
  front: Front;
  name: string;
  expects: string;
  ms: number;
  /** Undefined when refused; else what got through (or why the attack could not tell). */
  problem?: string;
}

/** Runs attacks one after the other (some change the server's state for the next); reports each as it ends. */
export async function runAttacks<Target>(
  attacks: readonly Attack<Target>[],
  target: Target,
  onOutcome: (outcome: AttackOutcome) => void = () => undefined,
): Promise<AttackOutcome[]> {
  const outcomes: AttackOutcome[] = [];
  for (const attack of attacks) {
    const started = performance.now();
    let problem: string | undefined;
    try {
      await attack.run(target);
    } catch (err) {
      problem = err instanceof GotThrough ? `GOT THROUGH: ${err.message}` : `could not run: ${(err as Error).stack ?? String(err)}`;
    }
    const outcome = { front: attack.front, name: attack.name, expects: attack.expects, ms: performance.now() - started, ...(problem && { problem }) };
    outcomes.push(outcome);
    onOutcome(outcome);
  }
  return outcomes;
}

/** The figures: per front, attacks tried and refused; then every one that was not refused, with what it expected. */
export function report(outcomes: readonly AttackOutcome[], title: string): string {
  const rows = FRONTS.map((front) => {
    const mine = outcomes.filter((o) => o.front === front);
    return [front, mine.length, mine.filter((o) => !o.problem).length, mine.filter((o) => o.problem).length, Math.round(mine.reduce((s, o) => s + o.ms, 0))];
  });
  const total = [
    'total',
    outcomes.length,
    outcomes.filter((o) => !o.problem).length,
    outcomes.filter((o) => o.problem).length,
    rows.reduce((s, r) => s + Number(r[4]), 0),
  ];
  const table = [['front', 'tried', 'refused', 'got through', 'ms'], ...rows, total];
  const widths = table[0]!.map((_, i) => Math.max(...table.map((r) => String(r[i]).length)));
  const line = (r: readonly unknown[]) => `| ${r.map((c, i) => (i === 0 ? String(c).padEnd(widths[i]!) : String(c).padStart(widths[i]!))).join(' | ')} |`;
  const out = [
    title,
    line(table[0]!),
    `|${widths.map((w, i) => (i === 0 ? '-'.repeat(w + 2) : `${'-'.repeat(w + 1)}:`)).join('|')}|`,
    ...table.slice(1).map(line),
  ];
  for (const o of outcomes.filter((x) => x.problem)) out.push('', `✗ [${o.front}] ${o.name}`, `  expected: ${o.expects}`, `  ${o.problem}`);
  return out.join('\n');
}
