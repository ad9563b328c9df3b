/** An abort signal tied to others, until `dispose()`. */
export interface LinkedAbort {
  /** Aborts with the reason of the first source that aborts, or of `abort(reason)`. */
  readonly signal: AbortSignal;
  abort(reason?: unknown): void;
  /** Unhooks from the sources; call it when the work is done. */
  dispose(): void;
}

/**
 * Links an abort signal to `sources` with listeners that `dispose()` removes. Unlike
 * `AbortSignal.any`, it leaves nothing behind on a long-lived source (Node 20 keeps every
 * `AbortSignal.any` result reachable from its sources), so per-request signals may hang off
 * the actor's shutdown signal.
 */
export function linkAbort(...sources: readonly AbortSignal[]): LinkedAbort {
  const controller = new AbortController();
  const hooks: (() => void)[] = [];
  for (const source of sources) {
    if (source.aborted) {
      controller.abort(source.reason);
      break;
    }
    const forward = () => controller.abort(source.reason);
    // No `{ once: true }`: a signal aborts once anyway, `dispose()` removes the listener, and on Node 20 the option makes adding it half as dear again.
    source.addEventListener('abort', forward);
    hooks.push(() => source.removeEventListener('abort', forward));
  }
  return {
    signal: controller.signal,
    abort: (reason) => controller.abort(reason),
    dispose: () => {
      for (const unhook of hooks.splice(0)) unhook();
    },
  };
}
