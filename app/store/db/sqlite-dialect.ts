/**
 * Kysely's SQLite dialect, with two changes for several processes on one database file:
 * transactions start with BEGIN IMMEDIATE (take the write lock up front, so two writers queue on
 * busy_timeout instead of failing with SQLITE_BUSY when a read transaction tries to upgrade), and
 * migrations run inside a transaction (SQLite DDL is transactional), which serializes two
 * processes migrating the same file at start.
 */
import { CompiledQuery, SqliteAdapter, SqliteDialect, SqliteDriver, type DatabaseConnection, type SqliteDialectConfig } from 'kysely';

class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

class TransactionalDdlSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}

export class ImmediateSqliteDialect extends SqliteDialect {
  readonly #config: SqliteDialectConfig;

  constructor(config: SqliteDialectConfig) {
    super(config);
    this.#config = config;
  }

  override createDriver() {
    return new ImmediateSqliteDriver(this.#config);
  }

  override createAdapter() {
    return new TransactionalDdlSqliteAdapter();
  }
}
