/** "Did you mean ...?" suggestions for misspelled names in a tools.yaml (keys, scopes, error codes, tools). */

/**
 * Edit distance counting an insertion, a deletion, a substitution or a swap of two adjacent
 * characters as one edit (optimal string alignment), so that `wirte` is one edit from `write`.
 */
function editDistance(a: string, b: string): number {
  // Three rolling rows: the one before the previous is needed for swaps.
  let before = new Array<number>(b.length + 1).fill(0);
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, before[j - 2]! + 1);
      current.push(d);
    }
    [before, previous] = [previous, current];
  }
  return previous[b.length]!;
}

/**
 * The candidate closest to `word` (case-insensitive), if it is close enough to be a misspelling:
 * at most max(1, floor(length / 3)) edits, and fewer edits than the word has characters (so that
 * `x` suggests nothing). Ties go to the earlier candidate.
 */
export function didYouMean(word: string, candidates: Iterable<string>): string | undefined {
  const lower = word.toLowerCase();
  const limit = Math.min(Math.max(1, Math.floor(word.length / 3)), word.length - 1);
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    // The distance is at least the difference in length: skip what cannot be close enough.
    if (Math.abs(candidate.length - word.length) > Math.min(limit, bestDistance - 1)) continue;
    const d = editDistance(lower, candidate.toLowerCase());
    if (d <= limit && d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}

/** ` (did you mean X?)` to append to a problem's message, or '' when no candidate is close. */
export function hint(word: string, candidates: Iterable<string>): string {
  const match = didYouMean(word, candidates);
  return match === undefined ? '' : ` (did you mean ${match}?)`;
}
