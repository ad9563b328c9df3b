import type { MiddlewareHandler } from 'hono';
import { ActorError } from '../../core/actor-error.js';
import { isEnvironmentPlaceholder } from '../../environment/environment-placeholder.js';
import { StartupRefusal } from '../../environment/startup-refusal.js';
import type { Logger } from '../../log/logger.js';
import { checkHeaderKey } from '../../core/header-key.js';

/** The header a peer sends the group's mesh key in. */
export const MESH_KEY_HEADER = 'X-Mesh-Key';

const CHALLENGE = { 'WWW-Authenticate': `MeshKey header="${MESH_KEY_HEADER}"` };

/**
 * Splits `MESH_KEY` into its keys (comma-separated for rotation). Throws when none is left:
 * the mesh must not open without a key.
 * @param raw the value of `MESH_KEY`
 */
export function parseMeshKeys(raw: string | undefined): string[] {
  const keys = (raw ?? '')
    .split(',')
    .map((key) => key.trim())
    .filter(Boolean);
  if (keys.length === 0)
    throw new StartupRefusal(
      'MESH_KEY',
      'fleet_mesh is on but MESH_KEY is empty: set MESH_KEY (comma-separated for rotation) to the key of the actor group',
    );
  if (keys.some(isEnvironmentPlaceholder))
    throw new StartupRefusal(
      'MESH_KEY',
      'fleet_mesh is on but MESH_KEY is still the placeholder of deployment.env: the platform (or you) must set MESH_KEY to the key of the actor group',
    );
  return keys;
}

/**
 * Guards peer reads: `X-Mesh-Key` must equal one of the keys, compared in constant time
 * against every key. Missing or wrong: 401 problem `missing_mesh_key` / `invalid_mesh_key`.
 * @param keys the accepted keys, from `parseMeshKeys`
 * @param logger where refusals are logged (never the key)
 */
export function meshKeyAuth(keys: readonly string[], logger: Logger): MiddlewareHandler {
  if (keys.length === 0) throw new Error('meshKeyAuth needs at least one key');
  return async function meshKeyAuthMiddleware(c, next) {
    const check = checkHeaderKey(c.req.header(MESH_KEY_HEADER), keys);
    if (check !== 'valid') {
      const code = check === 'missing' ? 'missing_mesh_key' : 'invalid_mesh_key';
      logger.warn('mesh_key_rejected', { code, path: c.req.path, request_id: c.env.requestId });
      throw new ActorError(code, {
        detail:
          code === 'missing_mesh_key'
            ? `Peer reads need the group's key in the ${MESH_KEY_HEADER} header`
            : `The ${MESH_KEY_HEADER} header does not hold the group's key`,
        headers: CHALLENGE,
      });
    }
    return next();
  };
}
