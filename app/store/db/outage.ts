/**
 * Which errors mean the store is down rather than a bug: the client then gets 503 with
 * Retry-After ("the database does not answer") instead of an internal error, and nothing is
 * logged as a failure of ours. PostgreSQL: the connection refused, reset or cut, and the server's
 * own "shutting down / starting up" answers (SQLSTATE class 08 and 57P0x).
 */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
const CUT_OFF = /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection terminated unexpectedly/;

export function describeStoreOutage(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const { code, message } = err as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && (NETWORK_CODES.has(code) || code.startsWith('08') || /^57P0[1-3]$/.test(code))) return 'the database does not answer';
  if (typeof message === 'string' && CUT_OFF.test(message)) return 'the database does not answer';
  // SQLite: the file could not be opened or read (a disk or permission fault), not a query mistake.
  if (code === 'SQLITE_CANTOPEN' || code === 'SQLITE_IOERR' || code === 'SQLITE_FULL') return 'the database file cannot be read or written';
  return undefined;
}
