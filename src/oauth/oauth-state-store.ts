/** What the actor remembers between `/oauth/authorize` and `/oauth/callback`. */
export interface OAuthStateRecord {
  readonly provider: string;
  readonly tenantId: string;
  /** Where to send the browser afterwards; undefined shows the success page. */
  readonly returnTo: string | undefined;
  /** The PKCE verifier; never leaves the actor. */
  readonly codeVerifier: string;
  /** The `redirect_uri` sent with the authorization request, sent again with the code. */
  readonly redirectUri: string;
  /** Epoch milliseconds after which the state is refused. */
  readonly expiresAt: number;
}

/**
 * Keeps OAuth states until their callback. `take` must be atomic and single-use: a state is
 * returned at most once, then forgotten. A store shared by all replicas is needed when more than
 * one replica serves `/oauth/*`.
 */
export interface OAuthStateStore {
  /** Keeps a pending flow under its state until it is taken or expires. */
  put(state: string, record: OAuthStateRecord, now: number): Promise<void>;
  /** Removes and returns the record of `state` (expired ones too, so the caller can say why), or null. */
  take(state: string): Promise<OAuthStateRecord | null>;
}

/** Default bound of `MemoryOAuthStateStore`. */
const DEFAULT_MAX_OAUTH_STATES = 10_000;

/**
 * A state store in this process's memory, for `createOAuthFlow({ stateStore })` (the default is
 * `StoreOAuthStateStore`, on the actor's database). Expired states are swept (oldest first) on
 * every `put`; past `maxEntries` the oldest state is dropped, so unauthenticated `/oauth/authorize`
 * calls cannot grow it without bound. Single replica only: a callback reaching another replica
 * finds no state (400 `invalid_state`), and a restart forgets every pending flow.
 */
export class MemoryOAuthStateStore implements OAuthStateStore {
  readonly #records = new Map<string, OAuthStateRecord>();
  readonly #maxEntries: number;

  constructor(options: { maxEntries?: number } = {}) {
    this.#maxEntries = options.maxEntries ?? DEFAULT_MAX_OAUTH_STATES;
    if (!Number.isSafeInteger(this.#maxEntries) || this.#maxEntries < 1)
      throw new Error(`maxEntries must be a positive integer, got ${this.#maxEntries}`);
  }

  /** How many states are pending. */
  get size(): number {
    return this.#records.size;
  }

  /** Keeps a pending flow under its state until it is taken or expires. */
  async put(state: string, record: OAuthStateRecord, now: number): Promise<void> {
    // States are kept in insertion order, which is expiry order for one time-to-live: sweep from the front.
    for (const [key, pending] of this.#records) {
      if (pending.expiresAt > now) break;
      this.#records.delete(key);
    }
    while (this.#records.size >= this.#maxEntries) this.#records.delete(this.#records.keys().next().value!);
    this.#records.set(state, record);
  }

  async take(state: string): Promise<OAuthStateRecord | null> {
    const record = this.#records.get(state) ?? null;
    this.#records.delete(state);
    return record;
  }
}
