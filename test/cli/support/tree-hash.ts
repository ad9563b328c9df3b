import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * Every entry under a folder (but .git), never following a link: a file by its mode and a hash of
 * its bytes, a folder by its mode, a link by where it points. Equal before and after means nothing
 * was written, deleted or relinked.
 */
export function treeHash(dir: string): Record<string, string> {
  const hashes: Record<string, string> = {};
  const walk = (folder: string): void => {
    for (const name of readdirSync(folder)) {
      const path = join(folder, name);
      const key = relative(dir, path);
      if (key.split('/')[0] === '.git') continue;
      const stats = lstatSync(path);
      if (stats.isSymbolicLink()) hashes[key] = `link:${readlinkSync(path)}`;
      else if (stats.isDirectory()) {
        hashes[key] = `dir:${stats.mode}`;
        walk(path);
      } else hashes[key] = `${stats.mode}:${createHash('sha256').update(readFileSync(path)).digest('hex')}`;
    }
  };
  walk(dir);
  return hashes;
}
