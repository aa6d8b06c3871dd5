/**
 * The writes of one transaction issued without waiting for each (PostgreSQL). Kysely runs a
 * transaction's statements one at a time in the order they were issued (its single-connection
 * provider), so issuing the next while the server runs the one before lets Node build it (render,
 * serialize) meanwhile instead of leaving the server idle between the two.
 *
 * `issue(write)` starts `write` at once on PostgreSQL. A write of several statements (chunks) issues
 * its later ones when its earlier ones end, after anything issued since: only a write of one
 * statement may be one that a later write depends on (a row a foreign key points at). On SQLite
 * each write starts when the one before has ended, in the order issued (and not at all after one
 * failed): its driver runs in process, so there is nothing to overlap, and chunked inserts keep
 * their order.
 *
 * Every write issued is waited for before `pipelined` returns or throws, whatever happens: a
 * statement still queued when the caller's transaction rolls back would run after the rollback,
 * outside any transaction. Failures are kept (none is left unhandled while later writes are built)
 * and the first is thrown; a failure aborts the transaction, so the writes after it fail too.
 */
import type { DbKind } from './db/kind.ts';

export type Issue = (write: () => Promise<unknown>) => void;

export async function pipelined(kind: DbKind, work: (issue: Issue) => void | Promise<void>): Promise<void> {
  const issued: Promise<unknown>[] = [];
  let last: Promise<unknown> = Promise.resolve();
  const issue: Issue = (write) => {
    const started = kind === 'postgres' ? write() : (last = last.then(write));
    started.catch(() => undefined);
    issued.push(started);
  };
  let failure: { error: unknown } | undefined;
  try {
    await work(issue);
  } catch (error) {
    failure = { error };
  }
  const results = await Promise.allSettled(issued);
  if (failure) throw failure.error;
  const rejected = results.find((r) => r.status === 'rejected');
  if (rejected) throw rejected.reason;
}
