import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/** Every file under a folder (but .git) with a hash of its bytes and mode: equal before and after means nothing was written. */
export function treeHash(dir: string): Record<string, string> {
  const hashes: Record<string, string> = {};
  for (const entry of readdirSync(dir, { recursive: true })) {
    const path = join(dir, String(entry));
    if (String(entry).split('/')[0] === '.git' || !statSync(path).isFile()) continue;
    hashes[relative(dir, path)] = `${statSync(path).mode}:${createHash('sha256').update(readFileSync(path)).digest('hex')}`;
  }
  return hashes;
}
