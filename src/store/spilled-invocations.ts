import { mkdir, open, readdir, readFile, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { TurnToSave, SessionStore } from './store.js';

/** Spill files are `<DATA_DIR>/<prefix><uuid>.json`; one per shutdown, so replicas sharing a folder never write one file. */
const SPILL_PREFIX = 'pending-invocations-';
const SPILL_SUFFIX = '.json';
/** Records per store call when merging (as the group commit batches). */
const MERGE_BATCH = 500;
/** What a spill file holds. */
interface SpillFile {
  readonly version: 1;
  /** The database the records belong to (`databaseIdentity`). */
  readonly database: string;
  readonly records: readonly TurnToSave[];
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
    await file.writeFile(JSON.stringify({ version: 1, database, records } satisfies SpillFile));
    await file.sync();
  } finally {
    await file.close();
  }
  await rename(temporary, path);
  return path;
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
 * Writes the records of every spill file under `dataDir` that belongs to `database` to the
 * store, then removes the file; files of another database are left alone. A file that is not a
 * spill this version wrote is renamed `<name>.unreadable`, never deleted. Rejects, leaving the
 * file in place, when the store cannot take the write: the next start retries.
 * @param dataDir the actor's `DATA_DIR`
 * @param database the store's database (`databaseIdentity`)
 * @param store where the records go
 */
export async function mergeSpilledInvocations(
  dataDir: string,
  database: string,
  store: Pick<SessionStore, 'saveTurns'>,
): Promise<MergedSpill> {
  let names: string[];
  try {
    names = (await readdir(dataDir))
      .filter((name) => name.startsWith(SPILL_PREFIX) && name.endsWith(SPILL_SUFFIX))
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
    const path = join(dataDir, name);
    let spill: SpillFile;
    try {
      spill = JSON.parse(await readFile(path, 'utf8')) as SpillFile;
      if (spill?.version !== 1 || !Array.isArray(spill.records)) throw new TypeError('not a spill file of version 1');
    } catch (error) {
      if ((error as { code?: unknown }).code === 'ENOENT') continue; // another replica merged it
      await rename(path, `${path}.unreadable`);
      unreadable.push(`${path}.unreadable`);
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
    await unlink(path).catch((error: unknown) => {
      if ((error as { code?: unknown }).code !== 'ENOENT') throw error;
    });
    records += spill.records.length;
    files += 1;
  }
  return { records, files, unreadable, foreign };
}
