import { readdir, rename, rmdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { CliError } from '../cli-error.js';

/**
 * Refuses a target that exists and is not an empty folder (codes `target_not_empty`,
 * `target_not_directory`); a missing target is fine.
 * @param targetDir absolute path of the folder `new` renders into.
 */
export async function assertEmptyTarget(targetDir: string): Promise<void> {
  const stats = await stat(targetDir).catch(() => undefined);
  if (stats === undefined) return;
  if (!stats.isDirectory())
    throw new CliError('refused', 'target_not_directory', `${targetDir} exists and is not a folder`);
  const entries = await readdir(targetDir);
  if (entries.length > 0) {
    throw new CliError(
      'refused',
      'target_not_empty',
      `${targetDir} is not empty (${entries.length} entries); choose a new or empty folder`,
    );
  }
}

/**
 * Moves a finished staging folder into place: renames it to the target when the target does not
 * exist, else moves its entries into the (empty) target and removes the staging folder.
 * @param stagingDir the rendered output, on the same file system as the target.
 * @param targetDir the final folder.
 */
export async function moveIntoPlace(stagingDir: string, targetDir: string): Promise<void> {
  await assertEmptyTarget(targetDir);
  const exists = await stat(targetDir).then(
    () => true,
    () => false,
  );
  if (!exists) return rename(stagingDir, targetDir);
  for (const entry of await readdir(stagingDir)) await rename(join(stagingDir, entry), join(targetDir, entry));
  await rmdir(stagingDir);
}
