/**
 * try/finally for a test's resources, without the flaw of `finally`: when the work fails and a
 * cleanup fails too (a database that cannot be dropped because the failed work left a server
 * connected to it), `finally` throws the cleanup's error and the work's, the cause, is lost.
 *
 * `work` registers each cleanup with `defer` as soon as it has something to clean up; they run in
 * reverse order once it ends, each whatever the others did. The work's error is thrown first, with
 * the cleanups' failures named beside it; when only cleanups failed, theirs is.
 */
export type Defer = (cleanup: () => Promise<unknown> | unknown) => void;

export async function withCleanups<T>(work: (defer: Defer) => Promise<T>): Promise<T> {
  const cleanups: (() => Promise<unknown> | unknown)[] = [];
  const failures: unknown[] = [];
  let result: T | undefined;
  try {
    result = await work((cleanup) => cleanups.push(cleanup));
  } catch (error) {
    failures.push(error);
  }
  for (const cleanup of cleanups.reverse()) {
    try {
      await cleanup();
    } catch (error) {
      failures.push(error);
    }
  }
  if (failures.length === 1) throw failures[0];
  if (failures.length > 1) {
    const [first, ...then] = failures.map(messageOf);
    throw new AggregateError(failures, `${first}\n(then cleaning up failed too: ${then.join('; ')})`);
  }
  return result as T;
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));
