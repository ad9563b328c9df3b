/** An OAuth token set kept per tenant and provider; never served in a response. */
export interface StoredOAuthToken {
  readonly tenantId: string;
  readonly provider: string;
  readonly accessToken: string;
  readonly refreshToken: string | null;
  readonly tokenType: string;
  readonly scope: string | null;
  /** When the access token expires (ISO 8601), or null when the provider gave no expiry. */
  readonly expiresAt: string | null;
}

/** A pending OAuth flow's state as the store keeps it (see `Store.takeOAuthState`). */
export interface StoredOAuthState {
  /** The flow's record as JSON text (the PKCE verifier, tenant, provider, `return_to`; never a token). */
  readonly record: string;
  /** Epoch milliseconds after which the state is refused. */
  readonly expiresAtMs: number;
}

/** The OAuth part of a store: tokens per tenant and provider, and the states of pending flows. */
export interface OAuthStore {
  saveOAuthToken(token: StoredOAuthToken): Promise<void>;
  loadOAuthToken(tenantId: string, provider: string): Promise<StoredOAuthToken | null>;
  /**
   * Remembers a pending OAuth flow under its `state` until `expiresAtMs` (epoch ms), replacing
   * a record of the same state; sweeps a bounded batch of expired states on the way.
   */
  putOAuthState(state: string, record: string, expiresAtMs: number): Promise<void>;
  /**
   * Removes and returns the record of `state`, atomically and once: of concurrent takes, from
   * any replica, exactly one gets it. Expired records not yet swept are returned too, so the
   * caller can say why it refuses them; null when the state is unknown or already taken.
   */
  takeOAuthState(state: string): Promise<StoredOAuthState | null>;
}
