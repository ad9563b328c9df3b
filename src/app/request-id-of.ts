import type { ActorBindings } from '../context/actor-context.js';

/** The request id of `c`, or a new one for a request that did not come through the actor's `fetch`. */
export function requestIdOf(c: { env: ActorBindings | undefined }): string {
  return c.env?.requestId ?? crypto.randomUUID();
}
