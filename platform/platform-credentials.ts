import { join } from 'node:path';
import { generateEdgeKey } from './gateway/edge-keys.js';
import { generateOwnerToken } from './gateway/owner-credentials.js';
import { keepKey, readKeptKey } from './kept-key-file.js';

/** The owner token and the edge keys of a platform run, kept in its state folder between runs. */
export interface PlatformCredentials {
  /** The owner's token (dashboard, panel relay, `/platform/*`). */
  readonly ownerToken: string;
  /** Where the owner token is kept: `<state dir>/owner-token`, mode 0600. */
  readonly ownerTokenFile: string;
  /** The edge key of every instance with an external edge, by ref. */
  readonly edgeKeys: ReadonlyMap<string, string>;
  /** Where an instance's edge key is kept: `<state dir>/edge-keys/<ref>.key`, mode 0600. */
  edgeKeyFile(ref: string): string;
}

/**
 * The owner token and the edge keys of the instances `edgeRefs`, as a previous run with the
 * same state folder kept them; those not kept yet are generated and kept (mode 0600, like the
 * mesh keys), so the dashboard login and every edge key survive a restart of the platform.
 * @param stateDir the platform's state folder
 * @param edgeRefs the refs of the instances that have an external edge
 */
export async function platformCredentials(stateDir: string, edgeRefs: Iterable<string>): Promise<PlatformCredentials> {
  const edgeKeyFile = (ref: string) => join(stateDir, 'edge-keys', `${ref}.key`);
  const keptOrNew = async (file: string, what: string, generate: () => string) => {
    const kept = await readKeptKey(file, what);
    if (kept !== undefined) return kept;
    const fresh = generate();
    keepKey(file, fresh);
    return fresh;
  };
  const ownerTokenFile = join(stateDir, 'owner-token');
  const ownerToken = await keptOrNew(ownerTokenFile, 'the owner token file', generateOwnerToken);
  const edgeKeys = new Map<string, string>();
  for (const ref of edgeRefs)
    edgeKeys.set(ref, await keptOrNew(edgeKeyFile(ref), 'the edge key file', generateEdgeKey));
  return { ownerToken, ownerTokenFile, edgeKeys, edgeKeyFile };
}
