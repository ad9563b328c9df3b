import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';

/** Where a package keeps the tarballs `npm pack` made of it, inside its own `node_modules` (the usual `.cache` place). */
export const PACKED_TARBALL_CACHE = join('node_modules', '.cache', 'actorkit', 'packed');

/** How many tarballs a cache keeps (the most recently used): enough to switch between a few branches. */
const ENTRIES_KEPT = 3;

/** A temporary file older than this was left by a process that died while writing it. */
const ABANDONED_AFTER_MS = 10 * 60_000;

const TAR_BLOCK = 512;

/**
 * The tarball cache folder of the package at `root`, or `undefined` when the package has no
 * `node_modules` folder (an installed package whose dependencies were hoisted): the cache is never
 * made anywhere else, and never in an actor's folder.
 * @param root the package folder.
 */
export function packedTarballCacheFolder(root: string): string | undefined {
  return existsSync(join(root, 'node_modules')) ? join(root, PACKED_TARBALL_CACHE) : undefined;
}

/**
 * The cached tarball named `name` when it is whole: it must gunzip (gzip's length and CRC-32 catch
 * a truncated or damaged file) into a tar archive of `package/…` entries that ends as tar archives
 * end. A damaged entry is removed and `undefined` comes back, as it does for a missing one or a
 * folder that cannot be read. A hit marks the entry as just used.
 * @param folder from {@link packedTarballCacheFolder}.
 * @param name the entry's file name, which carries the digest of what was packed.
 */
export async function readCachedTarball(folder: string, name: string): Promise<Buffer | undefined> {
  const path = join(folder, name);
  const tarball = await readFile(path).catch(() => undefined);
  if (tarball === undefined) return undefined;
  if (!isWholeTarball(tarball)) {
    await rm(path, { force: true }).catch(() => undefined);
    return undefined;
  }
  const now = new Date();
  await utimes(path, now, now).catch(() => undefined);
  return tarball;
}

/**
 * Stores `tarball` as the entry `name`: written under a temporary name and renamed into place, so
 * a reader (another `actorkit new` at the same time) sees the whole file or none, and two writers
 * of the same entry leave one whole file. Then keeps only the most recently used entries. Never
 * throws: a cache that cannot be written (a read-only checkout, a full disk) only means packing
 * again next time.
 * @param folder from {@link packedTarballCacheFolder}.
 * @param name the entry's file name.
 * @param tarball what `npm pack` made.
 */
export async function storeCachedTarball(folder: string, name: string, tarball: Buffer): Promise<void> {
  const temporary = join(folder, `.${name}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`);
  try {
    await mkdir(folder, { recursive: true });
    await writeFile(temporary, tarball);
    await rename(temporary, join(folder, name));
    await pruneCache(folder);
  } catch {
    await rm(temporary, { force: true }).catch(() => undefined);
  }
}

async function pruneCache(folder: string): Promise<void> {
  const entries = await Promise.all(
    (await readdir(folder)).map(async (name) => ({
      name,
      modified: (await stat(join(folder, name)).catch(() => undefined))?.mtimeMs ?? 0,
    })),
  );
  const tarballs = entries
    .filter(({ name }) => name.endsWith('.tgz') && !name.startsWith('.'))
    .sort((a, b) => b.modified - a.modified);
  const abandoned = entries.filter(
    ({ name, modified }) => name.endsWith('.tmp') && Date.now() - modified > ABANDONED_AFTER_MS,
  );
  for (const { name } of [...tarballs.slice(ENTRIES_KEPT), ...abandoned]) await rm(join(folder, name), { force: true });
}

/** Whether `tarball` gunzips into a tar archive whose first entry is under `package/` and which ends with tar's two zero blocks. */
function isWholeTarball(tarball: Buffer): boolean {
  let archive: Buffer;
  try {
    archive = gunzipSync(tarball);
  } catch {
    return false;
  }
  if (archive.length < 3 * TAR_BLOCK || archive.length % TAR_BLOCK !== 0) return false;
  const firstName = archive.subarray(0, 100).toString('latin1');
  return (
    firstName.startsWith('package/') && archive.subarray(archive.length - 2 * TAR_BLOCK).every((byte) => byte === 0)
  );
}
