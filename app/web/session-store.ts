/**
 * @fastify/session's store on our database, so that every instance knows every sign-in. The
 * session id is stored as its SHA-256: a copy of the table opens no session.
 */
import { createHash } from 'node:crypto';
import type { Session } from 'fastify';
import type { SessionStore } from '@fastify/session';
import type { Db } from '../store/db/database.ts';

type StoredSession = Session & { cookie?: { expires?: string | Date | null } };

/** Lifetime of a session whose cookie carries no expiry (the plugin always sets one here). */
const DEFAULT_TTL_MS = 12 * 3600 * 1000;

const hashId = (id: string) => createHash('sha256').update(id).digest('base64url');

export class DbSessionStore implements SessionStore {
  constructor(private readonly db: Db) {}

  set(sessionId: string, session: StoredSession, callback: (err?: unknown) => void): void {
    const expires = session.cookie?.expires ? new Date(session.cookie.expires) : new Date(Date.now() + DEFAULT_TTL_MS);
    const row = { user_id: typeof session.userId === 'string' ? session.userId : null, data: JSON.stringify(session), expires_at: expires.toISOString() };
    this.db
      .insertInto('web_sessions')
      .values({ id_hash: hashId(sessionId), ...row })
      .onConflict((oc) => oc.column('id_hash').doUpdateSet(row))
      .execute()
      .then(() => callback(), callback);
  }

  get(sessionId: string, callback: (err: unknown, result?: Session | null) => void): void {
    this.db
      .selectFrom('web_sessions')
      .select(['data', 'expires_at'])
      .where('id_hash', '=', hashId(sessionId))
      .executeTakeFirst()
      .then((row) => callback(null, row && row.expires_at > new Date().toISOString() ? (JSON.parse(row.data) as StoredSession) : null), callback);
  }

  destroy(sessionId: string, callback: (err?: unknown) => void): void {
    this.db
      .deleteFrom('web_sessions')
      .where('id_hash', '=', hashId(sessionId))
      .execute()
      .then(() => callback(), callback);
  }
}

/** Ends every web session of a user (e.g. when the account is disabled). */
export async function destroyUserSessions(db: Db, userId: string): Promise<void> {
  await db.deleteFrom('web_sessions').where('user_id', '=', userId).execute();
}

export async function sweepExpiredSessions(db: Db): Promise<void> {
  await db.deleteFrom('web_sessions').where('expires_at', '<=', new Date().toISOString()).execute();
}
