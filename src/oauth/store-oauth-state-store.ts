import * as v from 'valibot';
import type { OAuthStore } from '../store/store.js';
import type { OAuthStateRecord, OAuthStateStore } from './oauth-state-store.js';

/** The JSON a state record is stored as: the fields of `OAuthStateRecord` but its expiry (a column of its own). */
const StoredStateRecord = v.object({
  provider: v.string(),
  tenantId: v.string(),
  returnTo: v.optional(v.string()),
  codeVerifier: v.string(),
  redirectUri: v.string(),
});

/**
 * The default state store: pending states in the actor's own database (`OAuthStore.putOAuthState` /
 * `takeOAuthState`), so every replica on that database sees them and a restart keeps them. A
 * take is atomic and single-use across replicas. Only the fields of `OAuthStateRecord` are
 * written (the PKCE verifier included, never a token); a record that no longer parses (written
 * by another version) reads as unknown, so the callback answers 400 `invalid_state`.
 * @example
 * const oauth = createOAuthFlow({ providers, stateStore: new StoreOAuthStateStore(store) });
 */
export class StoreOAuthStateStore implements OAuthStateStore {
  readonly #store: Pick<OAuthStore, 'putOAuthState' | 'takeOAuthState'>;

  /** @param store the actor's store, shared by its replicas */
  constructor(store: Pick<OAuthStore, 'putOAuthState' | 'takeOAuthState'>) {
    this.#store = store;
  }

  /** Keeps a pending flow under its state, in the store, until it is taken or expires. */
  async put(state: string, record: OAuthStateRecord, _now: number): Promise<void> {
    const { provider, tenantId, returnTo, codeVerifier, redirectUri } = record;
    await this.#store.putOAuthState(
      state,
      JSON.stringify({ provider, tenantId, returnTo, codeVerifier, redirectUri }),
      record.expiresAt,
    );
  }

  async take(state: string): Promise<OAuthStateRecord | null> {
    const stored = await this.#store.takeOAuthState(state);
    if (stored === null) return null;
    let json: unknown;
    try {
      json = JSON.parse(stored.record);
    } catch {
      return null;
    }
    const parsed = v.safeParse(StoredStateRecord, json);
    if (!parsed.success) return null;
    return { ...parsed.output, returnTo: parsed.output.returnTo, expiresAt: stored.expiresAtMs };
  }
}
