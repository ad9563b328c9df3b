import type { LabelValues } from 'prom-client';
import type { ActorLifecycle } from '../core/actor-lifecycle.js';
import type { OAuthTokenSource } from '../core/oauth-token-source.js';
import type { Logger } from '../log/logger.js';
import type { IdempotencyStore, SessionStore } from '../store/store.js';
import type { ChatHandler } from './chat-handler.js';
import type { StatsRecorder } from './stats-recorder.js';

/**
 * What answering one invoke needs of the actor. The actor's context (`ActorContext`) is one;
 * declaring it here keeps the turn below the context and the agent in the layers.
 */
export interface TurnServices {
  readonly chatHandler: ChatHandler;
  readonly stats: StatsRecorder;
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
  readonly config: { readonly idempotencyTtlMs: number; readonly idempotencyClaimTtlMs: number };
  /** The OAuth access tokens the turn's tools ask for, per tenant and provider. */
  readonly oauthTokens: OAuthTokenSource;
}
