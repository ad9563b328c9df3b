import { withTimeout } from '../core/with-timeout.js';

/**
 * Waits for `promise` at most `timeoutMs`: resolves `true` when it settled in time, `false`
 * otherwise. Clears its timer, so it never keeps a process alive.
 * @internal shared by the Bun and Deno adapters to bound a graceful server stop
 */
export function settleWithin(promise: Promise<unknown>, timeoutMs: number): Promise<boolean> {
  const settled = promise.then(
    () => true,
    () => true,
  );
  return withTimeout(settled, timeoutMs, () => false);
}
