import type { Store } from '../store/store.js';

/**
 * A `Store` that forwards every call to a store still being opened, so the app can be built
 * synchronously and the connection made during start-up. Calls wait for the opening; when
 * it failed, they reject with its error.
 */
export function deferStore(opening: Promise<Store>, expectedKind: string): Store {
  let opened: Store | undefined;
  opening.then((store) => { opened = store; }, () => {});
  return new Proxy({} as Store, {
    get(_target, property) {
      if (property === 'kind') return opened?.kind ?? expectedKind;
      if (property === 'then') return undefined;
      return async (...args: unknown[]) => {
        const store = await opening;
        const method = store[property as keyof Store] as unknown as (...a: unknown[]) => unknown;
        return method.apply(store, args);
      };
    },
  });
}

