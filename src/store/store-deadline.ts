import { withTimeout } from '../core/with-timeout.js';
import type { Store } from './store.js';
import { storeTimeoutError } from './store-timeout.js';

/** Calls that wait as long as they must: migrations wait for other replicas and long DDL; closing flushes. */
const UNBOUNDED_CALLS: ReadonlySet<PropertyKey> = new Set(['migrate', 'close']);

/**
 * A `Store` whose every call (but `migrate` and `close`) rejects with a `store_timeout` error
 * once `deadlineMs` has passed without an answer, so a silent database never holds a request
 * for longer. The call itself is not cancelled here: the PostgreSQL store also gives up on the
 * query and discards its connection (see `deadlinePool`).
 * @param store the store to bound
 * @param deadlineMs the longest wait of one call, in milliseconds
 * @param onTimeout told of every call that timed out (the database monitor)
 */
export function withStoreDeadline(store: Store, deadlineMs: number, onTimeout: (error: Error) => void): Store {
  return new Proxy(store, {
    get(target, property) {
      const value = Reflect.get(target, property) as unknown;
      if (typeof value !== 'function') return value;
      const call = (...args: unknown[]) => (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
      if (UNBOUNDED_CALLS.has(property)) return call;
      return (...args: unknown[]) =>
        withTimeout(call(...args), deadlineMs, () => {
          const error = storeTimeoutError(target.kind, deadlineMs);
          onTimeout(error);
          throw error;
        });
    },
  });
}
