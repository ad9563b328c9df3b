import type { TurnToSave, Store } from '../../src/store/store.js';

function holdsPoison(records: readonly TurnToSave[]): boolean {
  return records.some((record) => record.history?.some((message) => message.content.includes('poison')));
}

/**
 * How the wrapped store misbehaves: `fail` rejects every call before it reaches the
 * database, `fail-after-write` lets `saveTurns` commit and then rejects (a lost
 * reply), `hang` never settles, `refuse-poison` rejects a `saveTurns` call holding a
 * message whose content contains "poison" (as PostgreSQL refuses a NUL in text) and nothing
 * else. `ok` passes calls through.
 */
export type FaultMode = 'ok' | 'fail' | 'fail-after-write' | 'hang' | 'refuse-poison';

/** A store wrapper whose calls can be made to fail, for outage tests on any engine. */
export interface FaultyStore {
  readonly store: Store;
  mode: FaultMode;
  /** Every `saveTurns` call that reached the wrapped store, in order. */
  readonly writes: (readonly { readonly id?: string }[])[];
}

/** Wraps `inner` so that tests can inject faults with `faulty.mode = 'fail'`. */
export function injectFaults(inner: Store): FaultyStore {
  const faulty: FaultyStore = { store: undefined as unknown as Store, mode: 'ok', writes: [] };
  const store = new Proxy(inner, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function' || property === 'close') return value;
      return async (...args: unknown[]) => {
        if (faulty.mode === 'fail') throw new Error(`injected fault: ${String(property)} failed`);
        if (faulty.mode === 'hang') return new Promise(() => {});
        if (faulty.mode === 'refuse-poison' && property === 'saveTurns' && holdsPoison(args[0] as TurnToSave[])) {
          throw new Error('injected fault: the database refused a message');
        }
        const result: unknown = await (value as (...a: unknown[]) => unknown).apply(target, args);
        if (property === 'saveTurns') {
          faulty.writes.push(args[0] as { id?: string }[]);
          if (faulty.mode === 'fail-after-write')
            throw new Error('injected fault: the reply of a committed write was lost');
        }
        return result;
      };
    },
  });
  return Object.assign(faulty, { store });
}
