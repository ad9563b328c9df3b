import type { ActorLifecycle } from '../core/actor-lifecycle.js';
import { ActorError } from '../core/actor-error.js';

/** Refuses an invoke with 503 `starting` or `draining` unless the actor is ready. */
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
