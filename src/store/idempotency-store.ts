/** A claimed `Idempotency-Key` completed with its reply, as the turn commits it with its record (`InvocationRecord.idempotency`). */
export interface IdempotencyCompletion {
  /** The claimed key (tenant-scoped, as claimed). */
  readonly key: string;
  /** The reply's HTTP status. */
  readonly status: number;
  /** The reply, as sent. */
  readonly body: string;
  /** How long the completed key is kept from the write on, in milliseconds. */
  readonly ttlMs: number;
}

/** The state of an `Idempotency-Key`. */
export type IdempotencyRecord =
  | { readonly state: 'running'; readonly fingerprint: string }
  | { readonly state: 'completed'; readonly fingerprint: string; readonly status: number; readonly body: string };

/** The idempotency part of a store: `Idempotency-Key` claims and the replies they keep, shared by replicas. */
export interface IdempotencyStore {
  /**
   * Claims an idempotency key: returns null when the key was free (it is now `running`),
   * otherwise the existing record. Expired records count as free.
   */
  claimIdempotencyKey(key: string, fingerprint: string, ttlMs: number): Promise<IdempotencyRecord | null>;
  /**
   * Stores the reply of a claimed key; with `ttlMs`, keeps it that long from now (a running
   * claim holds only as long as its invoke may run).
   */
  completeIdempotencyKey(key: string, status: number, body: string, ttlMs?: number): Promise<void>;
  /** Frees a claimed key whose request failed, so a retry may run. */
  releaseIdempotencyKey(key: string): Promise<void>;
}
