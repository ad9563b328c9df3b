import { ActorError } from './actor-error.js';
import { linkAbort, type LinkedAbort } from './linked-abort.js';

/** Where an actor is in its life: `/ready` and `POST /agent/invoke` read this. */
export type ActorPhase = 'starting' | 'ready' | 'draining' | 'stopped';

type SetMaxListeners = (count: number, ...targets: EventTarget[]) => void;

/**
 * Every in-flight invoke listens to the shutdown signal, so Node's default limit of ten
 * listeners would print a false leak warning under load. `events` is reached through
 * `process.getBuiltinModule` so this file imports no `node:` module; runtimes without it do
 * not warn in the first place.
 */
function allowManyListeners(signal: AbortSignal): void {
  const runtime = (
    globalThis as {
      process?: { getBuiltinModule?: (name: string) => { setMaxListeners?: SetMaxListeners } | undefined };
    }
  ).process;
  runtime?.getBuiltinModule?.('events')?.setMaxListeners?.(0, signal);
}

/**
 * Tracks the phase of an actor and the requests in flight, so a graceful shutdown can stop
 * taking new work, wait for what is running, then close.
 */
export class ActorLifecycle {
  #phase: ActorPhase = 'starting';
  #inFlight = 0;
  #idleWaiters: (() => void)[] = [];
  readonly #stopWork = new AbortController();
  /** The work `linkWork` linked, aborted with the shutdown: a set costs far less per request than a listener on `shutdownSignal`. */
  readonly #linkedWork = new Set<LinkedAbort>();
  readonly startedAt = Date.now();

  constructor() {
    allowManyListeners(this.#stopWork.signal);
  }

  /**
   * Aborted by `abortInFlight()` when a shutdown gives up waiting: model calls stop, open
   * streams end with an `abort` frame. Its reason is an `ActorError` 503 `draining`.
   */
  get shutdownSignal(): AbortSignal {
    return this.#stopWork.signal;
  }

  /** Aborts `shutdownSignal` and the work `linkWork` linked, so the work still in flight stops now. */
  abortInFlight(): void {
    this.#stopWork.abort(
      new ActorError('draining', {
        detail: 'The actor stopped before this request finished; send it again',
        headers: { 'Retry-After': '1' },
      }),
    );
    for (const work of this.#linkedWork) work.abort(this.#stopWork.signal.reason);
    this.#linkedWork.clear();
  }

  /**
   * A signal for one request's work (a turn): aborted when `requestSignal` aborts or when the
   * shutdown gives up waiting (`abortInFlight`, with its 503 `draining` reason). Call
   * `dispose()` when the work is done.
   * @param requestSignal the request's own signal (the client went away); none for work that outlives its request (a run)
   */
  linkWork(requestSignal?: AbortSignal): LinkedAbort {
    const link = requestSignal === undefined ? linkAbort() : linkAbort(requestSignal);
    if (this.#stopWork.signal.aborted) {
      link.abort(this.#stopWork.signal.reason);
      return link;
    }
    this.#linkedWork.add(link);
    return {
      signal: link.signal,
      abort: link.abort,
      dispose: () => {
        this.#linkedWork.delete(link);
        link.dispose();
      },
    };
  }

  get phase(): ActorPhase {
    return this.#phase;
  }

  /** Requests currently being answered. */
  get inFlight(): number {
    return this.#inFlight;
  }

  /** Marks the actor ready: `/ready` answers 200 from now on. */
  markReady(): void {
    if (this.#phase === 'starting') this.#phase = 'ready';
  }

  /** Stops taking new work: `/ready` turns 503 and new invokes get 503 `draining`. */
  beginDraining(): void {
    if (this.#phase === 'starting' || this.#phase === 'ready') this.#phase = 'draining';
  }

  /** Marks the actor stopped: new work is refused. */
  markStopped(): void {
    this.#phase = 'stopped';
  }

  /** Counts a request in; call the returned function exactly once when it is answered. */
  enter(): () => void {
    this.#inFlight += 1;
    let left = false;
    return () => {
      if (left) return;
      left = true;
      this.#inFlight -= 1;
      if (this.#inFlight === 0) for (const wake of this.#idleWaiters.splice(0)) wake();
    };
  }

  /** Resolves `true` once no request is in flight, or `false` when `timeoutMs` passes first. */
  waitForIdle(timeoutMs: number): Promise<boolean> {
    if (this.#inFlight === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#idleWaiters = this.#idleWaiters.filter((waiter) => waiter !== wake);
        resolve(false);
      }, timeoutMs);
      const wake = () => {
        clearTimeout(timer);
        resolve(true);
      };
      this.#idleWaiters.push(wake);
    });
  }
}

/**
 * Refuses a turn (`POST /agent/invoke`, the MCP tool `chat`) with 503 `starting` or `draining`
 * unless the actor is ready.
 * @param lifecycle the actor's lifecycle
 */
export function refuseWhenNotServing(lifecycle: Pick<ActorLifecycle, 'phase'>): void {
  const phase = lifecycle.phase;
  if (phase === 'ready') return;
  if (phase === 'starting')
    throw new ActorError('starting', { detail: 'Try again in a moment', headers: { 'Retry-After': '1' } });
  throw new ActorError('draining', {
    detail: 'Send the request to another replica',
    headers: { 'Retry-After': '1', Connection: 'close' },
  });
}
