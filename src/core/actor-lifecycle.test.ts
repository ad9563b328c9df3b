import { describe, expect, it } from 'vitest';
import { ActorError } from './actor-error.js';
import { ActorLifecycle } from './actor-lifecycle.js';

describe('ActorLifecycle.linkWork', () => {
  it('aborts the work with the request when the client goes away, and leaves the rest running', () => {
    const lifecycle = new ActorLifecycle();
    const gone = new AbortController();
    const staying = new AbortController();
    const first = lifecycle.linkWork(gone.signal);
    const second = lifecycle.linkWork(staying.signal);
    gone.abort('client closed');
    expect(first.signal.reason).toBe('client closed');
    expect(second.signal.aborted).toBe(false);
  });

  it('aborts the work still linked with 503 draining when the shutdown gives up, and not the work already done', () => {
    const lifecycle = new ActorLifecycle();
    const running = lifecycle.linkWork(new AbortController().signal);
    const done = lifecycle.linkWork(new AbortController().signal);
    done.dispose();
    lifecycle.abortInFlight();
    expect(running.signal.reason).toBeInstanceOf(ActorError);
    expect((running.signal.reason as ActorError).code).toBe('draining');
    expect(lifecycle.shutdownSignal.reason).toBe(running.signal.reason);
    expect(done.signal.aborted).toBe(false);
  });

  it('starts work linked after the shutdown gave up already aborted', () => {
    const lifecycle = new ActorLifecycle();
    lifecycle.abortInFlight();
    const late = lifecycle.linkWork(new AbortController().signal);
    expect((late.signal.reason as ActorError).code).toBe('draining');
    late.dispose();
  });

  it('no longer follows the request once disposed', () => {
    const lifecycle = new ActorLifecycle();
    const request = new AbortController();
    const work = lifecycle.linkWork(request.signal);
    work.dispose();
    request.abort('late');
    expect(work.signal.aborted).toBe(false);
  });
});
