import {
  CompiledQuery,
  SqliteAdapter,
  SqliteDialect,
  SqliteDriver,
  type DatabaseConnection,
  type SqliteDialectConfig,
} from 'kysely';
import { isNoActiveTransaction } from './database-errors.js';

/**
 * Kysely's SQLite driver with write transactions: `BEGIN IMMEDIATE` takes the write lock at
 * once. SQLite rolls a transaction back by itself on some errors (`SQLITE_FULL`, `SQLITE_IOERR`,
 * `SQLITE_NOMEM`, `SQLITE_BUSY`); Kysely's `ROLLBACK` then fails with "cannot rollback - no
 * transaction is active", and that error would replace the real one: it is ignored here.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }

  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      await super.rollbackTransaction(connection);
    } catch (error) {
      if (!isNoActiveTransaction(error)) throw error;
    }
  }
}

/** Kysely's SQLite adapter that declares SQLite's DDL transactional (it is), so migrations run in one transaction. */
class TransactionalDdlSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}

/**
 * Kysely's `SqliteDialect` for a store whose every transaction writes. Transactions begin
 * `IMMEDIATE`: another process holding the file waits out the busy time-out at `BEGIN` instead
 * of failing halfway with `SQLITE_BUSY_SNAPSHOT`. Kysely's `Migrator` takes no lock on SQLite;
 * with DDL declared transactional it runs every pending migration in one such transaction,
 * which is the lock: processes starting together on one file migrate one after the other.
 */
export class ImmediateSqliteDialect extends SqliteDialect {
  readonly #config: SqliteDialectConfig;

  constructor(config: SqliteDialectConfig) {
    super(config);
    this.#config = config;
  }

  override createDriver(): SqliteDriver {
    return new ImmediateSqliteDriver(this.#config);
  }

  override createAdapter(): SqliteAdapter {
    return new TransactionalDdlSqliteAdapter();
  }
}
