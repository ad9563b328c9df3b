import { mkdirSync, writeFileSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { refuseExposedFile } from './refuse-exposed-file.js';

/**
 * A key the platform keeps between runs in `file`, or undefined when there is none yet (or the
 * file is empty). A file that group or others may read is refused, like an exposed secrets
 * file, before a byte of it is read.
 * @param file where the key is kept
 * @param what what the key is, for the refusal (e.g. `the mesh key file`)
 */
export async function readKeptKey(file: string, what: string): Promise<string | undefined> {
  try {
    refuseExposedFile(file, (await stat(file)).mode, what);
    const kept = (await readFile(file, 'utf8')).trim();
    return kept === '' ? undefined : kept;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * Keeps a key in `file` with mode 0600 (its folder created 0700 when missing), replacing what
 * the file held. Synchronous, so a rotation is on disk before its new key is answered.
 * @param file where the key is kept
 * @param key the key
 */
export function keepKey(file: string, key: string): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  writeFileSync(file, `${key}\n`, { mode: 0o600 });
}
