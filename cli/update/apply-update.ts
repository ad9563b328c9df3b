import { chmod, copyFile, constants, lstat, mkdir, readdir, rename, rm, rmdir, writeFile } from 'node:fs/promises';
import { dirname, relative, resolve, sep } from 'node:path';
import { CliError } from '../cli-error.js';
import type { UpdateWrite } from './plan-update.js';

/**
 * Carries out an update's writes in the actor folder in two steps, so that a failure leaves the
 * actor as it was: first every new content is staged beside its target (copies of created and
 * updated files with the new render's permission bits, written texts with the bits of the file
 * they replace) and any folder it needs is made; a failure there removes what was staged and
 * made and is a `failed` {@link CliError} (`update_write_failed`). Then each staged file is
 * renamed over its target, dropped files are deleted, and folders the deletions left empty go.
 * @param actorDir the actor folder.
 * @param writes the writes `planUpdate` decided, plus any the update adds (its answers file).
 */
export async function applyUpdate(actorDir: string, writes: readonly UpdateWrite[]): Promise<void> {
  const staged: { readonly staging: string; readonly target: string }[] = [];
  const madeFolders: string[] = [];
  let current = '';
  try {
    for (const write of writes) {
      if (write.kind === 'delete') continue;
      current = write.path;
      const target = inside(actorDir, write.path);
      const made = await mkdir(dirname(target), { recursive: true });
      if (made !== undefined) madeFolders.push(made);
      const staging = `${target}.actorkit-update-${process.pid}`;
      staged.push({ staging, target });
      if (write.kind === 'copy') await copyFile(write.from, staging, constants.COPYFILE_EXCL);
      else {
        await writeFile(staging, write.text, { flag: 'wx' });
        const replaced = await lstat(target).catch(() => undefined);
        if (replaced !== undefined) await chmod(staging, replaced.mode & 0o7777);
      }
    }
  } catch (error) {
    await Promise.all(staged.map(({ staging }) => rm(staging, { force: true })));
    for (const folder of madeFolders.reverse()) await rm(folder, { recursive: true, force: true });
    throw new CliError(
      'failed',
      'update_write_failed',
      `could not write ${current}: ${(error as Error).message}; nothing was changed`,
      { cause: error },
    );
  }
  for (const { staging, target } of staged) await rename(staging, target);
  for (const write of writes) {
    if (write.kind !== 'delete') continue;
    const target = inside(actorDir, write.path);
    await rm(target, { force: true });
    await removeEmptyParents(actorDir, dirname(target));
  }
}

async function removeEmptyParents(actorDir: string, dir: string): Promise<void> {
  for (let current = dir; current.startsWith(actorDir + sep); current = dirname(current)) {
    if ((await readdir(current).catch(() => ['?'])).length > 0) return;
    await rmdir(current);
  }
}

function inside(actorDir: string, path: string): string {
  const target = resolve(actorDir, path);
  if (!target.startsWith(actorDir + sep))
    throw new Error(`refusing to write outside ${actorDir}: ${relative(actorDir, target)}`);
  return target;
}
