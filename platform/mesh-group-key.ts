import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { keepKey, readKeptKey } from './kept-key-file.js';
import { DEFAULT_MESH_GROUP } from './platform-defaults.js';
import type { SecretsFile } from './secrets-file.js';

/** The secret of the secrets file that, when present, is the key of the default group. */
const MESH_KEY_SECRET = 'MESH_KEY';

/** Where the generated key of a group is kept, under the state folder. */
function meshKeyFile(stateDir: string, group: string): string {
  return join(stateDir, 'mesh-keys', `${group}.key`);
}

/**
 * The fleet-mesh key of a group: for the default group, `MESH_KEY` of the secrets file when it
 * holds one; otherwise the key kept in `<state dir>/mesh-keys/<group>.key` (mode 0600),
 * generated (32 random bytes, base64url) the first time and the same on every later run. A kept
 * file that others may read is refused like an exposed secrets file.
 * @param stateDir the platform's state folder
 * @param group the group's name
 * @param secrets the secrets file
 */
export async function meshGroupKey(stateDir: string, group: string, secrets: SecretsFile): Promise<string> {
  const fromSecrets = group === DEFAULT_MESH_GROUP ? secrets.values.get(MESH_KEY_SECRET) : undefined;
  if (fromSecrets !== undefined && fromSecrets !== '') return fromSecrets;
  const file = meshKeyFile(stateDir, group);
  const kept = await readKeptKey(file, 'the mesh key file');
  if (kept !== undefined) return kept;
  const key = randomBytes(32).toString('base64url');
  keepKey(file, key);
  return key;
}
