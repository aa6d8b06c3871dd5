/**
 * Runs `work` on consecutive slices of at most `size` items, one after the other: a statement per
 * slice keeps its bound parameters under what SQLite and PostgreSQL accept in one statement.
 */
export async function inChunks<T>(items: readonly T[], size: number, work: (chunk: T[]) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < items.length; i += size) await work(items.slice(i, i + size));
}
