import type { LabelValues } from 'prom-client';
import type { ActorLifecycle } from '../core/actor-lifecycle.js';
import type { OAuthTokenSource } from '../core/oauth-token-source.js';
import type { Logger } from '../log/logger.js';
import type { TurnSaveOutcome } from '../store/group-commit.js';
import type { InvocationJournal } from '../store/spilled-invocations.js';
import type { IdempotencyStore, SessionStore, StatsSnapshot, TurnToSave } from '../store/store.js';
import type { ChatHandler } from './chat-handler.js';
import type { TurnRuns } from './turn-runs.js';

/**
 * Saves finished turns — messages, stats and idempotency completion in one call — and never
 * loses a count, even while the database is down (`GroupCommit` over the store's sessions).
 */
export interface TurnWriter {
  /** Saves a turn's messages and its invoke's stats in one write; resolves with what was kept. */
  saveTurn(turn: TurnToSave): Promise<TurnSaveOutcome>;
  /** Tries once to save the turns still waiting; rejects when some could not be. */
  flush(): Promise<void>;
  /** Hands the turns still waiting to `keep` (a file, when `flush()` failed on shutdown) and forgets them once it resolved. */
  spillPending(keep: (turns: readonly TurnToSave[]) => Promise<void>): Promise<number>;
  /** Turns whose stats wait in memory for the database. */
  readonly pending: number;
  /** Where waiting turns are journaled, and spill files written and merged from. */
  readonly journal: InvocationJournal | undefined;
}

/** Reads the counters behind `/stats`, the turns still waiting to be saved (`pending`) counted in. */
export interface StatsRecorder extends Pick<TurnWriter, 'pending'> {
  /** The invoke stats of a tenant (all tenants' without one), as `GET /stats` shows them. */
  readStats(tenantId?: string): Promise<StatsSnapshot>;
}

/**
 * What answering one invoke needs of the actor. The actor's context (`ActorContext`) is one;
 * declaring it here keeps the turn below the context and the agent in the layers.
 */
export interface TurnServices {
  readonly chatHandler: ChatHandler;
  /** Where the turn saves itself: one call per finished turn. */
  readonly turns: Pick<TurnWriter, 'saveTurn'>;
  readonly metrics: {
    readonly invocations: { inc(labels: LabelValues<'outcome'>): void };
    readonly invokeDuration: { observe(labels: LabelValues<'outcome'>, value: number): void };
  };
  readonly logger: Logger;
  readonly settings: { readonly values: Readonly<Record<string, unknown>> };
  readonly lifecycle: Pick<ActorLifecycle, 'phase' | 'shutdownSignal' | 'enter' | 'linkWork'>;
  /** The parts of the store a turn uses: its session's history read, and idempotency keys. */
  readonly store: IdempotencyStore & Pick<SessionStore, 'loadHistory'>;
  /** How many of the session's last messages the turn reads for the chat handler under these settings (0: no read). */
  readonly historyLimit: (settings: Readonly<Record<string, unknown>>) => number;
  readonly config: {
    readonly idempotencyTtlMs: number;
    readonly idempotencyClaimTtlMs: number;
    /** What a dropped client does to its run when the request does not say (`RUN_ON_DISCONNECT`). */
    readonly runs: { readonly onDisconnect: 'continue' | 'cancel' };
  };
  /** Where every invoke begins its run (the runs feature). */
  readonly runs: TurnRuns;
  /** The OAuth access tokens the turn's tools ask for, per tenant and provider. */
  readonly oauthTokens: OAuthTokenSource;
}
