import { requestIdFor } from '../src/http/index.js';
import type { PlatformConfig } from '../src/sdk/index.js';
import { ActorError, problemResponse } from '../src/index.js';
import type { ActorPool, ReplicaView } from './actor-pool.js';
import { canBeSentAgain, outgoingRequest, sendTo, type OutgoingRequest } from './forward-request.js';
import type { ReplicaSlot } from './replica-slot.js';

/** What a {@link SupervisedPool} is made of: the registered actor and its replica slots. */
export interface SupervisedPoolOptions {
  readonly ref: string;
  readonly dir: string;
  readonly config: PlatformConfig;
  readonly meshGroup: string | undefined;
  readonly slots: readonly ReplicaSlot[];
  /** The run's secret, sent to every replica in `X-Platform-Secret` (see `PLATFORM_SECRET`). */
  readonly platformSecret?: string;
  /** The replicas' `BODY_LIMIT_BYTES`: a body declared larger gets their 413 at once, unsent. */
  readonly bodyLimitBytes?: number;
}

/** Whether a failed fetch never reached the replica (so the request may go to another one unchanged). */
function neverReached(error: unknown): boolean {
  const cause = (error as { cause?: { code?: unknown } } | undefined)?.cause;
  return cause?.code === 'ECONNREFUSED';
}

/**
 * The 503 `no_ready_replica` answer, with `Retry-After`.
 * @param ref the actor's instance ref
 * @param request the request that found no replica
 * @param draining whether the platform is shutting down
 */
export function noReadyReplica(ref: string, request: Request, draining: boolean): Response {
  const detail = draining
    ? `${ref} is shutting down with the platform`
    : `No replica of ${ref} passes its readiness probe yet`;
  return problemResponse(
    new ActorError('no_ready_replica', { detail, headers: { 'Retry-After': '1' } }),
    requestIdFor(request, undefined),
  );
}

/**
 * A hosted actor as the local platform runs it: its replica slots behind a round-robin that
 * only picks replicas whose readiness probe passes. A request that finds its replica gone before
 * it connected goes to the next ready one (when its body was small enough to be read whole: a
 * larger one is streamed to one replica); once the platform drains, nothing is routed.
 */
export class SupervisedPool implements ActorPool {
  readonly ref: string;
  readonly slug: string;
  readonly dir: string;
  readonly config: PlatformConfig;
  readonly meshGroup: string | undefined;
  serviceUrl: string | undefined;
  readonly #slots: readonly ReplicaSlot[];
  readonly #platformSecret: string | undefined;
  readonly #bodyLimitBytes: number;
  #cursor = 0;
  #draining = false;

  constructor(options: SupervisedPoolOptions) {
    this.ref = options.ref;
    this.slug = options.config.actor.slug;
    this.dir = options.dir;
    this.config = options.config;
    this.meshGroup = options.meshGroup;
    this.#slots = options.slots;
    this.#platformSecret = options.platformSecret;
    this.#bodyLimitBytes = options.bodyLimitBytes ?? Infinity;
  }

  replicas(): readonly ReplicaView[] {
    return this.#slots.map((slot) => slot.view());
  }

  /** Starts every replica. */
  async start(): Promise<void> {
    await Promise.all(this.#slots.map((slot) => slot.start()));
  }

  /**
   * Stops routing, then stops every replica (SIGTERM, SIGKILL after `graceMs`).
   * @param graceMs how long each replica may take to drain
   */
  async drain(graceMs: number): Promise<void> {
    this.#draining = true;
    await Promise.all(this.#slots.map((slot) => slot.stop(graceMs)));
  }

  /** Whether every replica is ready. */
  allReady(): boolean {
    return this.#slots.every((slot) => slot.ready);
  }

  forward = async (request: Request): Promise<Response> => {
    if (this.#draining || !this.#slots.some((slot) => slot.ready)) return this.#noReadyReplica(request);
    const tooLarge = this.#tooLarge(request);
    if (tooLarge !== undefined) return tooLarge;
    const outgoing = await outgoingRequest(request, this.#bodyLimitBytes);
    for (let tried = 0; tried < this.#slots.length; tried++) {
      const slot = this.#nextReady();
      if (slot === undefined) break;
      try {
        return await sendTo(outgoing, slot.url, this.#platformSecret);
      } catch (error) {
        if (!(neverReached(error) && canBeSentAgain(outgoing))) return this.#unreachable(request, outgoing, error);
      }
    }
    return this.#noReadyReplica(request);
  };

  forwardTo = async (index: number, request: Request): Promise<Response> => {
    const slot = this.#slots[index];
    if (slot === undefined)
      return problemResponse(
        new ActorError('not_found', { detail: `${this.ref} has no replica ${index}` }),
        requestIdFor(request, undefined),
      );
    const outgoing = await outgoingRequest(request, this.#bodyLimitBytes);
    try {
      return await sendTo(outgoing, slot.url, this.#platformSecret);
    } catch (error) {
      return this.#unreachable(request, outgoing, error);
    }
  };

  #nextReady(): ReplicaSlot | undefined {
    for (let step = 0; step < this.#slots.length; step++) {
      const slot = this.#slots[this.#cursor % this.#slots.length] as ReplicaSlot;
      this.#cursor = (this.#cursor + 1) % this.#slots.length;
      if (slot.ready) return slot;
    }
    return undefined;
  }

  /** The replicas' own 413 for a body declared over their limit (a replica closes the connection it is still being written to, which would lose it). */
  #tooLarge(request: Request): Response | undefined {
    if (!(Number(request.headers.get('content-length') ?? '0') > this.#bodyLimitBytes)) return undefined;
    return problemResponse(
      new ActorError('payload_too_large', { detail: `The body must be at most ${this.#bodyLimitBytes} bytes` }),
      requestIdFor(request, undefined),
    );
  }

  #noReadyReplica(request: Request): Response {
    return noReadyReplica(this.ref, request, this.#draining);
  }

  #unreachable(request: Request, outgoing: OutgoingRequest, error: unknown): Response {
    if (outgoing.signal.aborted) throw error;
    return problemResponse(
      new ActorError('replica_unavailable', { detail: `A replica of ${this.ref} could not be reached`, cause: error }),
      requestIdFor(request, undefined),
    );
  }
}
