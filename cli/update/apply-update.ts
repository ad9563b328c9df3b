import { copyFile, mkdir, readdir, rm, rmdir, writeFile } from 'node:fs/promises';
import { dirname, resolve, sep } from 'node:path';
import type { UpdateWrite } from './plan-update.js';

/**
 * Carries out an update plan's writes in the actor folder: copies created and updated files from
 * the new render (with their permission bits), writes merged texts, deletes dropped files and
 * then any folder the deletions left empty.
 * @param actorDir the actor folder.
 * @param writes the writes `planUpdate` decided.
 */
export async function applyUpdate(actorDir: string, writes: readonly UpdateWrite[]): Promise<void> {
  for (const write of writes) {
    const target = inside(actorDir, write.path);
    if (write.kind === 'delete') {
      await rm(target, { force: true });
      await removeEmptyParents(actorDir, dirname(target));
      continue;
    }
    await mkdir(dirname(target), { recursive: true });
    if (write.kind === 'copy') await copyFile(write.from, target);
    else await writeFile(target, write.text);
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
  if (!target.startsWith(actorDir + sep)) throw new Error(`refusing to write outside ${actorDir}: ${path}`);
  return target;
}
