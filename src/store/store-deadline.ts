import { SharedDeadline } from '../core/shared-deadline.js';
import type { Store } from './store.js';

/** The `code` of the error a store call rejects with when the database gave no answer in time. */
const STORE_TIMEOUT = 'store_timeout';

/**
 * The error of a store call that outlived its deadline: the database did not answer (a network
 * partition, a silent server). The call may still complete on the server.
 * @param kind the store's kind, for the message
 * @param timeoutMs the deadline that passed
 */
export function storeTimeoutError(kind: string, timeoutMs: number): Error & { readonly code: string } {
  return Object.assign(new Error(`the ${kind} store did not answer within ${timeoutMs} ms`), { code: STORE_TIMEOUT });
}

/** Whether `error` says a store call outlived its deadline (see `storeTimeoutError`). */
export function isStoreTimeout(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === STORE_TIMEOUT;
}

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
  const deadline = new SharedDeadline(deadlineMs);
  const expire = (): never => {
    const error = storeTimeoutError(store.kind, deadlineMs);
    onTimeout(error);
    throw error;
  };
  // One bounded function per method, made on first use (and again if the method is replaced),
  // not two closures on every call.
  const bounded = new Map<
    PropertyKey,
    { readonly method: unknown; readonly call: (...args: unknown[]) => Promise<unknown> }
  >();
  return new Proxy(store, {
    get(target, property) {
      const value = Reflect.get(target, property) as unknown;
      if (typeof value !== 'function') return value;
      const known = bounded.get(property);
      if (known?.method === value) return known.call;
      const method = value as (...args: unknown[]) => Promise<unknown>;
      const call = UNBOUNDED_CALLS.has(property)
        ? (...args: unknown[]) => method.apply(target, args)
        : (...args: unknown[]) => deadline.bound(method.apply(target, args), expire);
      bounded.set(property, { method: value, call });
      return call;
    },
  });
}
