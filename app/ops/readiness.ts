/**
 * GET /readyz: ready when the store answers a query. The answer is public (load balancers poll
 * it, so anyone can), so it says ready or not and nothing more: the driver's error names the
 * database's address and port. The error goes to the log instead, as a warning at most once a
 * minute while the outage lasts (a balancer polling every second would flood it), with the number
 * of failed checks since the last warning.
 */
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type { Db } from '../store/db/database.ts';

/** What /readyz answers while the store does not. */
const NOT_READY = { status: 'unavailable', reason: 'the store does not answer' } as const;

export function readiness(app: FastifyInstance, db: Db, warnEveryMs = 60_000): void {
  let lastWarning = -Infinity;
  let failedSinceWarning = 0;
  app.get('/readyz', async (_req, reply) => {
    try {
      await sql`select 1`.execute(db);
    } catch (err) {
      failedSinceWarning++;
      if (Date.now() - lastWarning >= warnEveryMs) {
        app.log.warn({ err, failedChecks: failedSinceWarning }, 'readiness check failed: the store does not answer');
        lastWarning = Date.now();
        failedSinceWarning = 0;
      }
      return reply.code(503).send(NOT_READY);
    }
    if (lastWarning !== -Infinity) {
      // Back: the next outage is told at once.
      app.log.info('readiness check passed again: the store answers');
      lastWarning = -Infinity;
      failedSinceWarning = 0;
    }
    return { status: 'ready' };
  });
}
