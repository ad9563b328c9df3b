import { describe, expect, it } from 'vitest';
import { createLogger, createMemorySink } from '../log/logger.js';
import { createGracefulShutdown } from './graceful-shutdown.js';

function fakes(options: { shutdownFails?: boolean } = {}) {
  const sink = createMemorySink();
  const calls: string[] = [];
  let closeBudget = -1;
  const actor = {
    logger: createLogger({ sink }),
    async shutdown({ graceMs }: { graceMs?: number } = {}) {
      calls.push(`actor.shutdown(${graceMs})`);
      await new Promise((resolve) => setTimeout(resolve, 30));
      if (options.shutdownFails) throw new Error('store close failed');
    },
  };
  const listener = {
    async close(timeoutMs: number) {
      calls.push('listener.close');
      closeBudget = timeoutMs;
    },
  };
  return { sink, calls, actor, listener, closeBudget: () => closeBudget };
}

describe('createGracefulShutdown', () => {
  it('drains the actor first, then closes the listener with what is left of the grace period', async () => {
    const { calls, actor, listener, closeBudget, sink } = fakes();
    await createGracefulShutdown(actor, listener, 5000)('SIGTERM');
    expect(calls).toEqual(['actor.shutdown(5000)', 'listener.close']);
    expect(closeBudget()).toBeLessThan(5000);
    expect(closeBudget()).toBeGreaterThan(0);
    expect(sink.records.map((record) => record.event)).toEqual(['actor_shutdown_started', 'actor_server_closed']);
    expect(sink.records[0]).toMatchObject({ reason: 'SIGTERM', grace_ms: 5000 });
    expect(sink.records[1]).toMatchObject({ reason: 'SIGTERM', clean: true });
  });

  it('runs once: a second call shares the first run', async () => {
    const { calls, actor, listener } = fakes();
    const shutdown = createGracefulShutdown(actor, listener, 1000);
    await Promise.all([shutdown('SIGTERM'), shutdown('SIGINT'), shutdown('close')]);
    expect(calls).toEqual(['actor.shutdown(1000)', 'listener.close']);
  });

  it('still closes the listener when the actor fails to shut down, then reports the failure', async () => {
    const { calls, actor, listener, sink } = fakes({ shutdownFails: true });
    await expect(createGracefulShutdown(actor, listener, 1000)('SIGTERM')).rejects.toThrow('store close failed');
    expect(calls).toEqual(['actor.shutdown(1000)', 'listener.close']);
    expect(sink.records.find((record) => record.event === 'actor_shutdown_failed')).toMatchObject({
      level: 'error',
      reason: 'SIGTERM',
    });
    expect(sink.records.at(-1)).toMatchObject({ event: 'actor_server_closed', clean: false });
  });

  it('gives the listener no time when the actor used the whole grace period', async () => {
    const { actor, listener, closeBudget } = fakes();
    await createGracefulShutdown(actor, listener, 0)('SIGTERM');
    expect(closeBudget()).toBe(0);
  });
});
