import { lstatSync, readlinkSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { firstLinkOnPath } from '../links-on-path.js';
import type { ActorProblem } from './actor-problem.js';

/** The largest `src/platform/config.json` `validate` reads: 1 MiB, some twenty times what a large actor emits. */
const CONFIG_FILE_MAX_BYTES = 1024 * 1024;

/**
 * Why `validate` will not touch an actor's configuration file, or `undefined` when it may: the
 * file (when present) must be a regular file of at most {@link CONFIG_FILE_MAX_BYTES} with no
 * symbolic link on its path. A link could lead the emitter's comparison (which quotes the first
 * line that differs) to print a file outside the actor, and `--write` to overwrite one; reading a
 * FIFO waits for a writer forever. The problem is an `emitter` one at `/`.
 * @param actorDir the actor folder.
 * @param configFile the file's path inside it, with `/` separators.
 */
export function configFileShapeProblem(actorDir: string, configFile: string): ActorProblem | undefined {
  const link = firstLinkOnPath(actorDir, configFile);
  if (link !== undefined) {
    return refusal(
      `${link} is a symbolic link (to ${readlinkSync(join(actorDir, link))}); validate reads and writes only a regular ${configFile} inside the actor`,
      'replace the link by the file itself',
    );
  }
  const stats = lstatSync(join(actorDir, configFile), { throwIfNoEntry: false });
  if (stats === undefined) return undefined;
  const regenerate = 'remove it, then run `actorkit validate --write`';
  if (!stats.isFile())
    return refusal(
      `${configFile} is not a regular file (${kindOf(stats)}); validate reads only a regular file`,
      regenerate,
    );
  if (stats.size > CONFIG_FILE_MAX_BYTES)
    return refusal(
      `${configFile} is ${stats.size.toLocaleString('en-US')} bytes, more than the ${CONFIG_FILE_MAX_BYTES / 1024 / 1024} MiB validate reads`,
      regenerate,
    );
  return undefined;
}

function refusal(message: string, hint: string): ActorProblem {
  return { rule: 'emitter', pointer: '', message, hint };
}

function kindOf(stats: Stats): string {
  if (stats.isDirectory()) return 'a folder';
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  return 'not a file';
}
