import type { Store } from '../store/store.js';

/**
 * A `Store` that forwards every call to a store still being opened, so the app can be built
 * synchronously and the connection made during start-up. Calls wait for the opening; when it
 * failed, they reject with its error and the next call opens again.
 * @param open opens the real store
 * @param expectedKind the kind reported until the store is open
 */
export function deferStore(open: () => Promise<Store>, expectedKind: string): Store {
  let opened: Store | undefined;
  let opening: Promise<Store> | undefined;
  const ready = () => {
    opening ??= open().then(
      (store) => (opened = store),
      (error: unknown) => {
        opening = undefined;
        throw error;
      },
    );
    return opening;
  };
  return new Proxy({} as Store, {
    get(_target, property) {
      if (property === 'kind') return opened?.kind ?? expectedKind;
      if (property === 'then') return undefined;
      return async (...args: unknown[]) => {
        const store = opened ?? (await ready());
        const method = store[property as keyof Store] as unknown as (...a: unknown[]) => unknown;
        return method.apply(store, args);
      };
    },
  });
}
