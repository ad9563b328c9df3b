/** Sessions a `HistoryCache` keeps by default; the least recently used goes first. */
const DEFAULT_MAX_SESSIONS = 500;
/** Longest tail of one session a `HistoryCache` keeps by default. */
const DEFAULT_MAX_MESSAGES = 200;
/** Characters (UTF-16 code units) of ids, contents, data and timestamps kept by default across sessions: about 20 MB at most. */
const DEFAULT_MAX_CHARACTERS = 10_000_000;

/**
 * A NUL character, or a UTF-16 surrogate without its pair: SQLite does not give such text back
 * as it was given (libSQL cuts it at a NUL; an unpaired surrogate comes back as U+FFFD).
 */
const ALTERED_BY_SQLITE = /[\u0000\p{Cs}]/u;

/**
 * One message as the history statement returns it and as the cache keeps it: `data` stays JSON
 * text, so each read parses objects of its own and no caller can change what another one gets.
 */
export interface HistoryRow {
  readonly id: string;
  readonly role: string;
  readonly content: string;
  /** JSON text, or null. */
  readonly data: string | null;
  readonly created_at: string;
}

/** Messages one committed transaction appended to a session, for `HistoryCache.append`. */
export interface HistoryAppend {
  readonly tenantId: string;
  readonly sessionId: string;
  /** The appended messages, oldest first. */
  readonly rows: readonly HistoryRow[];
  /** Whether the session had no message before: the rows are then its whole history. */
  readonly createdSession: boolean;
}

/** Bounds of a `HistoryCache`; each a positive integer. */
export interface HistoryCacheOptions {
  /** Most sessions kept (default 500). */
  readonly maxSessions?: number;
  /** Longest tail kept of one session (default 200); a session keeps no more than the largest limit asked so far. */
  readonly maxMessages?: number;
  /** Most characters of message text kept across sessions (default 10,000,000). */
  readonly maxCharacters?: number;
}

/** The tail of one session's history. */
interface Entry {
  /** Oldest first. */
  rows: HistoryRow[];
  /** Whether `rows` is the whole session. */
  whole: boolean;
  characters: number;
  /** What the filler noted with the rows (PostgreSQL: the session's identity and last position, see `tail`). */
  tag?: unknown;
}

/** The cached tail of one session as `HistoryCache.tail` gives it. */
export interface CachedTail {
  /** Oldest first; the caller must not change it. */
  readonly rows: readonly HistoryRow[];
  /** Whether `rows` is the whole session. */
  readonly whole: boolean;
  /** What `fill` was given with the rows. */
  readonly tag: unknown;
}

function positiveInteger(value: number | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1)
    throw new RangeError(`${name} must be a positive integer, got ${String(value)}`);
  return value;
}

/** Characters of `rows[from]` up to (not including) `rows[to]`. */
function charactersOf(rows: readonly HistoryRow[], from = 0, to = rows.length): number {
  let characters = 0;
  for (let index = from; index < to; index += 1) {
    const row = rows[index]!;
    characters += row.id.length + row.content.length + (row.data?.length ?? 0) + row.created_at.length;
  }
  return characters;
}

/** Whether SQLite gives every text of `row` back unchanged (see `ALTERED_BY_SQLITE`). */
function keptAsIs(row: HistoryRow): boolean {
  return (
    !ALTERED_BY_SQLITE.test(row.id) && !ALTERED_BY_SQLITE.test(row.content) && !ALTERED_BY_SQLITE.test(row.created_at)
  );
}

/**
 * The tail of the most recently used sessions' histories, for a store whose database only this
 * connection writes between two `syncDataVersion` calls that see the same version (SQLite's
 * `PRAGMA data_version` changes when any other connection commits). It answers a read when it
 * holds at least the messages asked for, or the whole session; it learns from reads (`fill`)
 * and from committed appends (`append`). Bounded by sessions, messages per session and
 * characters. Keys or texts SQLite would not give back unchanged are never kept.
 *
 * A store whose other writers it cannot observe (PostgreSQL replicas) uses `tail` and `fill`
 * with a tag instead: it asks the database, in the same query as the new rows, whether the tag
 * still holds (see `postgresSessions`).
 */
export class HistoryCache {
  readonly #maxSessions: number;
  readonly #maxMessages: number;
  readonly #maxCharacters: number;
  /** Sessions by key, least recently used first. */
  readonly #entries = new Map<string, Entry>();
  /** Messages each session keeps: the largest limit asked so far, at most `maxMessages`. */
  #keep = 0;
  #characters = 0;
  #dataVersion: number | undefined;

  constructor(options: HistoryCacheOptions = {}) {
    this.#maxSessions = positiveInteger(options.maxSessions, 'maxSessions', DEFAULT_MAX_SESSIONS);
    this.#maxMessages = positiveInteger(options.maxMessages, 'maxMessages', DEFAULT_MAX_MESSAGES);
    this.#maxCharacters = positiveInteger(options.maxCharacters, 'maxCharacters', DEFAULT_MAX_CHARACTERS);
  }

  /** Sessions held now. */
  get sessions(): number {
    return this.#entries.size;
  }

  /** Characters of message text held now. */
  get characters(): number {
    return this.#characters;
  }

  /** Empties the cache when `version` (the connection's `PRAGMA data_version`) differs from the last one seen. */
  syncDataVersion(version: number): void {
    if (version === this.#dataVersion) return;
    this.clear();
    this.#dataVersion = version;
  }

  /**
   * The last `limit` messages of the session, oldest first, in an array of the caller's own;
   * undefined when the cache cannot tell them (read the database, then `fill`).
   */
  read(tenantId: string, sessionId: string, limit: number): HistoryRow[] | undefined {
    this.#asked(limit);
    const key = this.#key(tenantId, sessionId);
    const entry = key === undefined ? undefined : this.#entries.get(key);
    if (key === undefined || entry === undefined) return undefined;
    if (entry.rows.length < limit && !entry.whole) return undefined;
    this.#touch(key, entry);
    return limit >= entry.rows.length ? entry.rows.slice() : entry.rows.slice(entry.rows.length - limit);
  }

  /**
   * The session's whole cached tail with the tag it was filled with, as the most recently used;
   * undefined when none is held.
   */
  tail(tenantId: string, sessionId: string): CachedTail | undefined {
    const key = this.#key(tenantId, sessionId);
    const entry = key === undefined ? undefined : this.#entries.get(key);
    if (key === undefined || entry === undefined) return undefined;
    this.#touch(key, entry);
    return { rows: entry.rows, whole: entry.whole, tag: entry.tag };
  }

  /**
   * Keeps what the database answered to a read of the last `limit` messages (`rows`, oldest
   * first; more are cut to the kept tail), with `tag` for `tail` to give back.
   */
  fill(tenantId: string, sessionId: string, limit: number, rows: readonly HistoryRow[], tag?: unknown): void {
    this.#asked(limit);
    const key = this.#key(tenantId, sessionId);
    if (key === undefined) return;
    this.#delete(key);
    if (!rows.every(keptAsIs)) return;
    this.#store(key, { rows: rows.slice(), whole: rows.length < limit, characters: charactersOf(rows), tag });
  }

  /**
   * Adds to the session's cached tail the messages read from the database right after it
   * (`rows`, oldest first), with `tag` for `tail` to give back from now on. The rows held are not
   * checked again, and `rows`, being what the database gave back, are kept as they are; a tail
   * `tail` handed out before stays as it was. Does nothing when the session is not held, or when
   * its tail is no longer the one the rows were read after (its tag is not `follows`: another
   * read of the session changed it meanwhile).
   * @param limit the messages the read asked for, as `fill` takes it
   * @param follows the tag of the tail the rows were read after, as `tail` gave it
   */
  extend(
    tenantId: string,
    sessionId: string,
    limit: number,
    rows: readonly HistoryRow[],
    tag: unknown,
    follows: unknown,
  ): void {
    this.#asked(limit);
    const key = this.#key(tenantId, sessionId);
    const entry = key === undefined ? undefined : this.#entries.get(key);
    if (key === undefined || entry === undefined || entry.tag !== follows) return;
    this.#delete(key);
    this.#store(key, {
      rows: entry.rows.concat(rows),
      whole: entry.whole,
      characters: entry.characters + charactersOf(rows),
      tag,
    });
  }

  /** Forgets one session. */
  forget(tenantId: string, sessionId: string): void {
    const key = this.#key(tenantId, sessionId);
    if (key !== undefined) this.#delete(key);
  }

  /**
   * Adds the messages of a committed transaction, in order, to the sessions held; a session not
   * held is taken in only when the append created it. Empties the cache when a key or a text
   * would not come back from SQLite as given.
   */
  append(appends: readonly HistoryAppend[]): void {
    const keys: string[] = [];
    for (const append of appends) {
      const key = this.#key(append.tenantId, append.sessionId);
      if (key === undefined || !append.rows.every(keptAsIs)) {
        this.clear();
        return;
      }
      keys.push(key);
    }
    for (const [index, { rows, createdSession }] of appends.entries()) {
      const key = keys[index]!;
      const entry = this.#entries.get(key);
      if (entry !== undefined) {
        this.#delete(key);
        this.#store(key, {
          rows: entry.rows.concat(rows),
          whole: entry.whole,
          characters: entry.characters + charactersOf(rows),
        });
      } else if (createdSession) {
        this.#store(key, { rows: rows.slice(), whole: true, characters: charactersOf(rows) });
      }
    }
  }

  /** Forgets every session. */
  clear(): void {
    this.#entries.clear();
    this.#characters = 0;
  }

  /** Keeps `limit` messages of each session from now on, up to `maxMessages`. */
  #asked(limit: number): void {
    this.#keep = Math.max(this.#keep, Math.min(limit, this.#maxMessages));
  }

  /** The map key of a session; undefined for one SQLite would not keep as given. */
  #key(tenantId: string, sessionId: string): string | undefined {
    if (ALTERED_BY_SQLITE.test(tenantId) || ALTERED_BY_SQLITE.test(sessionId)) return undefined;
    return `${tenantId.length}:${tenantId}${sessionId}`;
  }

  #touch(key: string, entry: Entry): void {
    this.#entries.delete(key);
    this.#entries.set(key, entry);
  }

  #delete(key: string): void {
    const entry = this.#entries.get(key);
    if (entry === undefined) return;
    this.#entries.delete(key);
    this.#characters -= entry.characters;
  }

  /**
   * Adds `entry` (its `characters` those of its rows) as the most recently used, cut to the kept
   * tail, then evicts down to the bounds. A cut makes a new array: `tail` hands rows out.
   */
  #store(key: string, entry: Entry): void {
    const cut = entry.rows.length - this.#keep;
    if (cut > 0) {
      entry.characters -= charactersOf(entry.rows, 0, cut);
      entry.rows = entry.rows.slice(cut);
      entry.whole = false;
    }
    if (entry.rows.length === 0 && !entry.whole) return;
    this.#entries.set(key, entry);
    this.#characters += entry.characters;
    while (this.#entries.size > this.#maxSessions || this.#characters > this.#maxCharacters) {
      const oldest = this.#entries.keys().next().value as string;
      this.#delete(oldest);
    }
  }
}
