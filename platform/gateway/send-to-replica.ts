import { ActorError, clientClosedError } from '../../src/index.js';
import type { ActorPool } from '../actor-pool.js';

/**
 * Sends a request to the pool's next ready replica; a replica that cannot be reached or drops
 * the connection becomes 502 `replica_unavailable` (the pool itself answers 503 when none is ready).
 * @param pool the instance
 * @param request the request, on the actor's own path
 */
export async function sendToReplica(pool: ActorPool, request: Request): Promise<Response> {
  try {
    return await pool.forward(request);
  } catch (error) {
    if (request.signal.aborted) throw clientClosedError(error);
    throw new ActorError('replica_unavailable', {
      detail: `A replica of ${pool.ref} could not be reached or dropped the connection; try again`,
      cause: error,
    });
  }
}
