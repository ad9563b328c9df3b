import { join, resolve } from 'node:path';
import { StartupRefusal } from '../environment/startup-refusal.js';

/** Where a store lives, decided from `DATABASE_URL` and `DATA_DIR`. */
export type DatabaseTarget =
  | { readonly engine: 'sqlite'; readonly location: 'file'; readonly path: string }
  | { readonly engine: 'sqlite'; readonly location: 'memory' }
  | { readonly engine: 'postgres'; readonly url: string };

/** A `DATABASE_URL` that names no database actorkit can open; the message never contains a password. */
export class DatabaseUrlError extends StartupRefusal {
  readonly code = 'invalid_database_url';

  constructor(message: string) {
    super('DATABASE_URL', message);
    this.name = 'DatabaseUrlError';
  }
}

/** The SQLite file used when `DATABASE_URL` is unset. */
const DEFAULT_SQLITE_FILE = 'actor.db';

/**
 * Replaces the password of a URL with `***` so it can appear in errors and logs.
 * @param url a database URL, possibly malformed (then only its scheme is kept)
 */
export function redactDatabaseUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.href;
  } catch {
    const scheme = /^[a-z][a-z0-9+.-]*:/i.exec(url)?.[0];
    return scheme === undefined ? '(not a URL)' : `${scheme}…`;
  }
}

/**
 * Decides which database a `DATABASE_URL` names: unset or empty is an SQLite file
 * `<dataDir>/actor.db`, `memory://` an in-memory SQLite, `file:<path>` an SQLite file at that
 * path, `postgres://` or `postgresql://` PostgreSQL. Anything else throws `DatabaseUrlError`.
 * @param url the `DATABASE_URL` value
 * @param dataDir the directory of the default SQLite file
 */
export function parseDatabaseUrl(url: string | undefined, dataDir: string): DatabaseTarget {
  const trimmed = url?.trim() ?? '';
  if (trimmed === '') return { engine: 'sqlite', location: 'file', path: join(dataDir, DEFAULT_SQLITE_FILE) };
  if (/^memory:(\/\/)?$/i.test(trimmed)) return { engine: 'sqlite', location: 'memory' };
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(trimmed)?.[1]?.toLowerCase();
  if (scheme === 'file') {
    const path = decodeURIComponent(trimmed.slice('file:'.length).replace(/^\/\/(localhost)?(?=\/)/i, ''));
    if (path === '' || path.endsWith('/'))
      throw new DatabaseUrlError(`DATABASE_URL ${redactDatabaseUrl(trimmed)} names no SQLite file`);
    return { engine: 'sqlite', location: 'file', path };
  }
  if (scheme === 'postgres' || scheme === 'postgresql') {
    let parsed: URL;
    try {
      parsed = new URL(trimmed);
    } catch {
      throw new DatabaseUrlError(
        `DATABASE_URL ${redactDatabaseUrl(trimmed)} is not a valid PostgreSQL URL (expected postgres://user:password@host:5432/database)`,
      );
    }
    if (parsed.hostname === '' && !parsed.searchParams.has('host')) {
      throw new DatabaseUrlError(
        `DATABASE_URL ${redactDatabaseUrl(trimmed)} names no host (expected postgres://user:password@host:5432/database)`,
      );
    }
    return { engine: 'postgres', url: trimmed };
  }
  const shown = scheme === undefined ? redactDatabaseUrl(trimmed) : `"${scheme}:"`;
  throw new DatabaseUrlError(
    `DATABASE_URL ${scheme === undefined ? `${shown} is not a URL` : `scheme ${shown} is not supported`}: use postgres://…, memory://, file:<path>, or leave it unset for SQLite under DATA_DIR`,
  );
}

/**
 * A name of the database a target points at, the same across restarts and never holding a
 * password: what a spill file of pending counts is tied to, so it is merged into that database
 * only (see `spillInvocations`).
 * @param target what `parseDatabaseUrl` decided
 */
export function databaseIdentity(target: DatabaseTarget): string {
  if (target.engine === 'postgres') return redactDatabaseUrl(target.url);
  return target.location === 'memory' ? 'memory:' : `file:${resolve(target.path)}`;
}
