import { type FileHandle, mkdir, open, readdir, readFile, rename, stat, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import type { Logger } from '../log/logger.js';
import type { TurnToSave, SessionStore } from './store.js';

/**
 * Spill files are `<DATA_DIR>/<prefix><uuid>.json`, one per shutdown; journals are
 * `<DATA_DIR>/<prefix><host>~<pid>~<uuid>.jsonl`, one per process and outage. So replicas sharing
 * a folder never write one file, and a journal names the process that appends to it.
 */
const SPILL_PREFIX = 'pending-invocations-';
const SPILL_SUFFIX = '.json';
const JOURNAL_SUFFIX = '.jsonl';
const OWNER_SEPARATOR = '~';
/** Records per store call when merging (as the group commit batches), and most lines per journal write. */
const MERGE_BATCH = 500;
/** How often a journal's writer touches it, so a replica on another host sees it alive. */
const JOURNAL_HEARTBEAT_MS = 15_000;
/** A journal of another host untouched this long is taken for one of a process that is gone. */
const FOREIGN_JOURNAL_STALE_MS = 4 * JOURNAL_HEARTBEAT_MS;
/**
 * What a spill file holds. A journal holds the same: its first line is the header (`version`
 * and `database`), each further line one record.
 */
interface SpillFile {
  readonly version: 1;
  /** The database the records belong to (`databaseIdentity`). */
  readonly database: string;
  readonly records: readonly TurnToSave[];
}

/** This host's name as it goes in a journal's file name (no separator, no path). */
function journalHost(): string {
  return hostname().replace(/[^A-Za-z0-9.-]/g, '_') || 'host';
}

/**
 * Reads a spill file or a journal. A journal's last line without its newline was being
 * appended when its writer died, before its turn was answered: it is left out. A journal whose
 * header is not complete holds no records.
 */
async function readSpill(path: string): Promise<SpillFile> {
  const text = await readFile(path, 'utf8');
  if (!path.endsWith(JOURNAL_SUFFIX)) return JSON.parse(text) as SpillFile;
  const lines = text.split('\n');
  lines.pop(); // '' after the last newline, or a line cut short
  const [header, ...records] = lines;
  if (header === undefined) return { version: 1, database: '', records: [] };
  const { version, database } = JSON.parse(header) as Omit<SpillFile, 'records'>;
  return { version, database, records: records.map((line) => JSON.parse(line) as TurnToSave) };
}

/**
 * Whether the journal `name` may be taken: its writer is gone. On this host a process of the
 * same id is taken for an earlier life of this container (the process itself never asks about
 * the journal it appends to); on another host, a journal untouched for `FOREIGN_JOURNAL_STALE_MS`.
 */
async function journalWriterGone(path: string, name: string): Promise<boolean> {
  const [host, pid] = name.slice(SPILL_PREFIX.length, -JOURNAL_SUFFIX.length).split(OWNER_SEPARATOR);
  if (host === journalHost()) {
    if (Number(pid) === process.pid) return true;
    try {
      process.kill(Number(pid), 0);
      return false;
    } catch (error) {
      return (error as { code?: unknown }).code === 'ESRCH';
    }
  }
  const { mtimeMs } = await stat(path);
  return Date.now() - mtimeMs > FOREIGN_JOURNAL_STALE_MS;
}

/** A new journal name owned by this process. */
function ownJournalName(): string {
  return `${SPILL_PREFIX}${journalHost()}${OWNER_SEPARATOR}${process.pid}${OWNER_SEPARATOR}${crypto.randomUUID()}${JOURNAL_SUFFIX}`;
}

/** Resolves after `ms`. */
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Removes `path`; a file already gone is fine. */
async function removeFile(path: string): Promise<void> {
  await unlink(path).catch((error: unknown) => {
    if ((error as { code?: unknown }).code !== 'ENOENT') throw error;
  });
}

/** Makes a new entry of `dataDir` durable (a no-op where folders cannot be opened to sync). */
async function syncFolder(dataDir: string): Promise<void> {
  const folder = await open(dataDir, 'r').catch(() => undefined);
  await folder?.sync().catch(() => {});
  await folder?.close();
}

/**
 * Writes invocation records that could not reach the database to a new file under `dataDir`,
 * atomically (a temporary file, synced, then renamed), readable by its owner only. The records
 * keep their ids, so merging them twice counts them once.
 * @param dataDir the actor's `DATA_DIR`
 * @param database the database the records belong to (`databaseIdentity`)
 * @param records the records still waiting
 * @returns the file's path
 */
export async function spillInvocations(
  dataDir: string,
  database: string,
  records: readonly TurnToSave[],
): Promise<string> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const path = join(dataDir, `${SPILL_PREFIX}${crypto.randomUUID()}${SPILL_SUFFIX}`);
  const temporary = `${path}.tmp`;
  const file = await open(temporary, 'wx', 0o600);
  try {
    try {
      await file.writeFile(JSON.stringify({ version: 1, database, records } satisfies SpillFile));
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(temporary, path);
  } catch (error) {
    // A full disk leaves no empty or partial temporary file behind.
    await removeFile(temporary).catch(() => {});
    throw error;
  }
  await syncFolder(dataDir);
  return path;
}

/**
 * Writes a spill file as `spillInvocations` does, trying again every `retryMs` while it fails
 * (a full disk may free up) until `deadlineMs` (`Date.now()` time) has passed; at least once.
 * @param onFirstFailure told about the first failure only (to log it once)
 * @returns the file's path; rejects with the last failure after the deadline
 */
export async function spillInvocationsUntil(
  dataDir: string,
  database: string,
  records: readonly TurnToSave[],
  options: {
    readonly deadlineMs: number;
    readonly retryMs?: number;
    readonly onFirstFailure?: (error: unknown) => void;
  },
): Promise<string> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await spillInvocations(dataDir, database, records);
    } catch (error) {
      if (attempt === 1) options.onFirstFailure?.(error);
      if (Date.now() + (options.retryMs ?? 200) > options.deadlineMs) throw error;
      await sleep(options.retryMs ?? 200);
    }
  }
}

interface JournalLine {
  readonly line: string;
  readonly written: () => void;
  readonly failed: (error: unknown) => void;
}

/**
 * The on-disk journal of the turns that wait for the database: while it is away each deferred
 * turn is appended as one line to `<DATA_DIR>/pending-invocations-<host>~<pid>~<uuid>.jsonl` and
 * the file is synced before `append` resolves, so a `kill -9` loses no answered turn's count.
 * Appends that arrive while a write is in flight share the next write and sync (at most 500
 * lines each). `mergeSpilledInvocations` takes journals back once their writer is gone; the
 * writer `discard`s its own once the database took its turns.
 * @example
 * const journal = new InvocationJournal(dataDir, databaseIdentity(parseDatabaseUrl(url, dataDir)));
 * await journal.append(turn); // on disk
 * await journal.discard(); // the database has every turn again
 */
export class InvocationJournal {
  /** The actor's `DATA_DIR`. */
  readonly dataDir: string;
  /** The database the turns belong to (`databaseIdentity`). */
  readonly database: string;
  #file: { readonly handle: FileHandle; readonly path: string } | undefined;
  /** Every journal this process wrote since the last `discard` (a failed write starts a new one). */
  #written: string[] = [];
  #waiting: JournalLine[] = [];
  #writing: Promise<void> | undefined;
  #heartbeat: ReturnType<typeof setInterval> | undefined;

  constructor(dataDir: string, database: string) {
    this.dataDir = dataDir;
    this.database = database;
  }

  /** The journal being appended to, if any (never taken by `mergeSpilledInvocations` of this process). */
  get path(): string | undefined {
    return this.#file?.path;
  }

  /** Appends one turn (its counts, never its messages) and resolves once it is synced to disk; rejects when it could not be. */
  append(turn: TurnToSave): Promise<void> {
    return new Promise((written, failed) => {
      this.#waiting.push({ line: `${JSON.stringify(turn)}\n`, written, failed });
      this.#writing ??= this.#writeWaiting();
    });
  }

  /**
   * Writes what waits, batch after batch. It forgets itself in the same step that finds nothing
   * more waiting, so an append made by a caller it just answered starts the next writer.
   */
  async #writeWaiting(): Promise<void> {
    try {
      while (this.#waiting.length > 0) {
        const batch = this.#waiting.splice(0, MERGE_BATCH);
        try {
          const file = this.#file ?? (await this.#create());
          await file.handle.write(batch.map((entry) => entry.line).join(''));
          await file.handle.datasync();
          for (const entry of batch) entry.written();
        } catch (error) {
          // The file may end in a line cut short: the next append starts a new one.
          await this.#closeFile();
          for (const entry of batch) entry.failed(error);
        }
      }
    } finally {
      this.#writing = undefined;
    }
  }

  async #create(): Promise<{ readonly handle: FileHandle; readonly path: string }> {
    await mkdir(this.dataDir, { recursive: true, mode: 0o700 });
    const path = join(this.dataDir, ownJournalName());
    const handle = await open(path, 'ax', 0o600);
    try {
      await handle.write(`${JSON.stringify({ version: 1, database: this.database })}\n`);
    } catch (error) {
      // A full disk leaves no journal without a header behind.
      await handle.close().catch(() => {});
      await removeFile(path).catch(() => {});
      throw error;
    }
    this.#file = { handle, path };
    this.#written.push(path);
    await syncFolder(this.dataDir);
    this.#heartbeat ??= setInterval(() => {
      const now = new Date();
      void this.#file?.handle.utimes(now, now).catch(() => {});
    }, JOURNAL_HEARTBEAT_MS);
    (this.#heartbeat as { unref?: () => void }).unref?.();
    return this.#file;
  }

  async #closeFile(): Promise<void> {
    const file = this.#file;
    this.#file = undefined;
    clearInterval(this.#heartbeat);
    this.#heartbeat = undefined;
    await file?.handle.close().catch(() => {});
  }

  /**
   * Closes and removes the journals this process wrote, once every append already asked for
   * is done: call it when no turn waits any more (the database, or a spill file, has them all).
   * Appends asked for meanwhile start a new journal.
   * @param stillTrue checked once the appends are done: when false, nothing is removed
   */
  async discard(stillTrue: () => boolean = () => true): Promise<void> {
    while (this.#writing !== undefined) await this.#writing;
    if (!stillTrue()) return;
    const written = this.#written.splice(0);
    await this.#closeFile();
    for (const path of written) await removeFile(path);
  }
}

/**
 * Merges the spill files and the journals of processes that are gone into `store`, as
 * `mergeSpilledInvocations` does, and logs what it found (`stats_spill_merged`,
 * `stats_spill_unreadable`, `stats_spill_of_other_database`). Rejects when the store cannot take them.
 */
export async function replaySpilledInvocations(
  journal: InvocationJournal,
  store: Pick<SessionStore, 'saveTurns'>,
  logger: Logger,
): Promise<MergedSpill> {
  const spill = await mergeSpilledInvocations(journal.dataDir, journal.database, store, {
    appendingTo: journal.path,
  });
  if (spill.files > 0) logger.info('stats_spill_merged', { records: spill.records, files: spill.files });
  if (spill.unreadable.length > 0) logger.error('stats_spill_unreadable', { files: spill.unreadable });
  if (spill.foreign.length > 0) logger.warn('stats_spill_of_other_database', { files: spill.foreign });
  return spill;
}

/** What `mergeSpilledInvocations` found. */
export interface MergedSpill {
  /** Records counted from spill files (a record already counted is not counted again). */
  readonly records: number;
  /** Spill files merged and removed. */
  readonly files: number;
  /** Spill files that could not be read, renamed to `<name>.unreadable` and left for a human. */
  readonly unreadable: readonly string[];
  /** Spill files of another database (the actor's `DATABASE_URL` changed), left in place. */
  readonly foreign: readonly string[];
}

/**
 * Writes the records of every spill file under `dataDir` that belongs to `database`, and of
 * every journal whose writer is gone, to the store, then removes the file; files of another
 * database are left alone. A journal is first renamed to one of this process (an atomic claim:
 * of several replicas merging, one takes it; if this one dies, the next start takes it again).
 * A file that is not a spill this version wrote is renamed `<name>.unreadable`, never deleted.
 * Rejects, leaving the file in place, when the store cannot take the write: the next start
 * (or the database's return) retries. Records keep their ids, so a file merged twice counts once.
 * @param dataDir the actor's `DATA_DIR`
 * @param database the store's database (`databaseIdentity`)
 * @param store where the records go
 * @param options `appendingTo`: the journal this process appends to, never taken
 */
export async function mergeSpilledInvocations(
  dataDir: string,
  database: string,
  store: Pick<SessionStore, 'saveTurns'>,
  options: { readonly appendingTo?: string | undefined } = {},
): Promise<MergedSpill> {
  let names: string[];
  try {
    names = (await readdir(dataDir))
      .filter((name) => name.startsWith(SPILL_PREFIX) && (name.endsWith(SPILL_SUFFIX) || name.endsWith(JOURNAL_SUFFIX)))
      .sort();
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ENOENT') return { records: 0, files: 0, unreadable: [], foreign: [] };
    throw error;
  }
  let records = 0;
  let files = 0;
  const unreadable: string[] = [];
  const foreign: string[] = [];
  for (const name of names) {
    let path = join(dataDir, name);
    if (name.endsWith(JOURNAL_SUFFIX)) {
      if (path === options.appendingTo) continue;
      try {
        if (!(await journalWriterGone(path, name))) continue;
        const claimed = join(dataDir, ownJournalName());
        await rename(path, claimed);
        path = claimed;
      } catch (error) {
        if ((error as { code?: unknown }).code === 'ENOENT') continue; // another replica took it
        throw error;
      }
    }
    let spill: SpillFile;
    try {
      spill = await readSpill(path);
      if (spill?.version !== 1 || !Array.isArray(spill.records)) throw new TypeError('not a spill file of version 1');
    } catch (error) {
      if ((error as { code?: unknown }).code === 'ENOENT') continue; // another replica merged it
      await rename(path, `${path}.unreadable`);
      unreadable.push(`${path}.unreadable`);
      continue;
    }
    if (spill.records.length === 0 && path.endsWith(JOURNAL_SUFFIX)) {
      await removeFile(path); // its writer died before the first line was on disk
      continue;
    }
    if (spill.database !== database) {
      foreign.push(path);
      continue;
    }
    try {
      for (let index = 0; index < spill.records.length; index += MERGE_BATCH)
        await store.saveTurns(spill.records.slice(index, index + MERGE_BATCH));
    } catch (error) {
      // The store checks every record at its entry: a TypeError names one it will never take.
      if (!(error instanceof TypeError)) throw error;
      await rename(path, `${path}.unreadable`);
      unreadable.push(`${path}.unreadable`);
      continue;
    }
    await removeFile(path);
    records += spill.records.length;
    files += 1;
  }
  return { records, files, unreadable, foreign };
}
