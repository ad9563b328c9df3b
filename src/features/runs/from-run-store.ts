import { ActorError } from '../../core/actor-error.js';

/**
 * Reads runs from the store, turning an unreachable database into 503 `store_unavailable`.
 * @param read the store read
 */
export async function fromRunStore<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    throw new ActorError('store_unavailable', {
      detail: 'Runs are unavailable: the database is unreachable; try again shortly',
      headers: { 'Retry-After': '5' },
      cause: error,
    });
  }
}
