import { describe, expect, it, vi } from 'vitest';
import { createLogger, createMemorySink } from '../log/logger.js';
import { type ServableApp, type ServeRuntime, serveActor } from './serve-actor.js';
import type { ShutdownSignal } from './signal-host.js';

function setUp(
  options: { startFails?: boolean; listenFails?: boolean; shutdownFails?: boolean; env?: Record<string, string> } = {},
) {
  const sink = createMemorySink();
  const calls: string[] = [];
  let signalHandler: ((signal: ShutdownSignal) => void) | undefined;
  const exits: number[] = [];
  let exited: () => void = () => {};
  const exitedOnce = new Promise<void>((resolve) => (exited = resolve));
  const app: ServableApp = {
    fetch: () => new Response('ok'),
    actor: {
      logger: createLogger({ sink }),
      async start() {
        calls.push('start');
        if (options.startFails) throw new Error('migration failed');
      },
      async shutdown(shutdownOptions) {
        calls.push(`shutdown(${shutdownOptions?.graceMs})`);
        if (options.shutdownFails) throw new Error('store close failed');
      },
    },
  };
  const runtime: ServeRuntime = {
    name: 'fake',
    env: options.env ?? {},
    async listen(_app, address) {
      calls.push(`listen(${address.hostname}:${address.port})`);
      if (options.listenFails) throw new Error('EADDRINUSE');
      return {
        port: address.port === 0 ? 41_234 : address.port,
        async close(timeoutMs) {
          calls.push(`close(${timeoutMs === 0 ? 0 : 'remaining'})`);
        },
      };
    },
    onShutdownSignal(handler) {
      calls.push('subscribe');
      signalHandler = handler;
      return () => {
        calls.push('unsubscribe');
        signalHandler = undefined;
      };
    },
    exit(code) {
      exits.push(code);
      exited();
    },
  };
  return { app, runtime, sink, calls, exits, exitedOnce, signal: (name: ShutdownSignal) => signalHandler?.(name) };
}

describe('serveActor', () => {
  it('listens, logs actor_listening with the real port, then starts the actor', async () => {
    const { app, runtime, sink, calls } = setUp({ env: { PORT: '0' } });
    const handle = await serveActor(app, {}, runtime);
    expect(calls).toEqual(['listen(0.0.0.0:0)', 'subscribe', 'start']);
    expect(handle).toMatchObject({ port: 41_234, url: 'http://127.0.0.1:41234' });
    expect(sink.records[0]).toMatchObject({
      event: 'actor_listening',
      runtime: 'fake',
      port: 41_234,
      url: 'http://127.0.0.1:41234',
    });
  });

  it('on SIGTERM drains with the grace period, closes the server and exits 0', async () => {
    const { app, runtime, calls, exits, exitedOnce, signal } = setUp({ env: { SHUTDOWN_GRACE_MS: '1234' } });
    await serveActor(app, { port: 0 }, runtime);
    signal('SIGTERM');
    await exitedOnce;
    expect(calls.slice(-2)).toEqual(['shutdown(1234)', 'close(remaining)']);
    expect(exits).toEqual([0]);
  });

  it('exits 1 when the shutdown fails', async () => {
    const { app, runtime, exits, exitedOnce, signal } = setUp({ shutdownFails: true });
    await serveActor(app, { port: 0 }, runtime);
    signal('SIGINT');
    await exitedOnce;
    expect(exits).toEqual([1]);
  });

  it('exits 1 at once on a second signal during the drain', async () => {
    const { app, runtime, exits, sink, signal } = setUp();
    app.actor.shutdown = () => new Promise(() => {});
    await serveActor(app, { port: 0 }, runtime);
    signal('SIGTERM');
    signal('SIGINT');
    expect(exits).toEqual([1]);
    expect(sink.records.find((record) => record.event === 'actor_shutdown_forced')).toMatchObject({
      signal: 'SIGINT',
      first_signal: 'SIGTERM',
    });
  });

  it('subscribes to no signal with signals: false; close() shuts down without exiting', async () => {
    const { app, runtime, calls, exits } = setUp();
    const handle = await serveActor(app, { port: 0, signals: false, graceMs: 50 }, runtime);
    expect(calls).not.toContain('subscribe');
    await handle.close();
    expect(calls.slice(-2)).toEqual(['shutdown(50)', 'close(remaining)']);
    expect(exits).toEqual([]);
  });

  it('close() removes its signal handlers first', async () => {
    const { app, runtime, calls } = setUp();
    const handle = await serveActor(app, { port: 0 }, runtime);
    await handle.close();
    expect(calls.slice(-3)).toEqual(['unsubscribe', 'shutdown(10000)', 'close(remaining)']);
  });

  it('closes the server, logs actor_start_failed and rejects when the actor cannot start', async () => {
    const { app, runtime, calls, sink } = setUp({ startFails: true });
    await expect(serveActor(app, { port: 0 }, runtime)).rejects.toThrow('migration failed');
    expect(calls.slice(-2)).toEqual(['unsubscribe', 'close(0)']);
    expect(sink.records.find((record) => record.event === 'actor_start_failed')).toMatchObject({ level: 'error' });
  });

  it('logs actor_listen_failed and rejects when the address cannot be bound, without starting', async () => {
    const { app, runtime, calls, sink } = setUp({ listenFails: true });
    const start = vi.spyOn(app.actor, 'start');
    await expect(serveActor(app, { port: 8080 }, runtime)).rejects.toThrow('EADDRINUSE');
    expect(start).not.toHaveBeenCalled();
    expect(calls).toEqual(['listen(0.0.0.0:8080)']);
    expect(sink.records[0]).toMatchObject({ event: 'actor_listen_failed', port: 8080, level: 'error' });
  });

  it('refuses a malformed PORT before listening', async () => {
    const { app, runtime, calls } = setUp({ env: { PORT: 'eighty' } });
    await expect(serveActor(app, {}, runtime)).rejects.toThrow(/PORT/);
    expect(calls).toEqual([]);
  });
});

/** An app whose shutdown takes 30 ms (and may fail) and a runtime whose listener records the time it is given. */
function shutdownFakes(options: { shutdownFails?: boolean } = {}) {
  const sink = createMemorySink();
  const calls: string[] = [];
  let closeBudget = -1;
  const app: ServableApp = {
    fetch: () => new Response('ok'),
    actor: {
      logger: createLogger({ sink }),
      async start() {},
      async shutdown({ graceMs }: { graceMs?: number } = {}) {
        calls.push(`actor.shutdown(${graceMs})`);
        await new Promise((resolve) => setTimeout(resolve, 30));
        if (options.shutdownFails) throw new Error('store close failed');
      },
    },
  };
  const runtime: ServeRuntime = {
    name: 'fake',
    env: {},
    async listen() {
      return {
        port: 41_234,
        async close(timeoutMs) {
          calls.push('listener.close');
          closeBudget = timeoutMs;
        },
      };
    },
    onShutdownSignal: () => () => {},
    exit() {},
  };
  const shutdownRecords = () =>
    sink.records.filter((record) => record.event !== 'actor_listening' && record.event !== 'allowed_hosts_needed');
  return { sink, calls, app, runtime, shutdownRecords, closeBudget: () => closeBudget };
}

describe('serveActor: the graceful shutdown', () => {
  it('drains the actor first, then closes the listener with what is left of the grace period', async () => {
    const { calls, app, runtime, closeBudget, shutdownRecords } = shutdownFakes();
    const handle = await serveActor(app, { port: 0, signals: false, graceMs: 5000 }, runtime);
    await handle.close();
    expect(calls).toEqual(['actor.shutdown(5000)', 'listener.close']);
    expect(closeBudget()).toBeLessThan(5000);
    expect(closeBudget()).toBeGreaterThan(0);
    expect(shutdownRecords().map((record) => record.event)).toEqual(['actor_shutdown_started', 'actor_server_closed']);
    expect(shutdownRecords()[0]).toMatchObject({ reason: 'close', grace_ms: 5000 });
    expect(shutdownRecords()[1]).toMatchObject({ reason: 'close', clean: true });
  });

  it('runs once: a second call shares the first run', async () => {
    const { calls, app, runtime } = shutdownFakes();
    const handle = await serveActor(app, { port: 0, signals: false, graceMs: 1000 }, runtime);
    await Promise.all([handle.close(), handle.close(), handle.close()]);
    expect(calls).toEqual(['actor.shutdown(1000)', 'listener.close']);
  });

  it('still closes the listener when the actor fails to shut down, then reports the failure', async () => {
    const { calls, app, runtime, sink } = shutdownFakes({ shutdownFails: true });
    const handle = await serveActor(app, { port: 0, signals: false, graceMs: 1000 }, runtime);
    await expect(handle.close()).rejects.toThrow('store close failed');
    expect(calls).toEqual(['actor.shutdown(1000)', 'listener.close']);
    expect(sink.records.find((record) => record.event === 'actor_shutdown_failed')).toMatchObject({
      level: 'error',
      reason: 'close',
    });
    expect(sink.records.at(-1)).toMatchObject({ event: 'actor_server_closed', clean: false });
  });

  it('gives the listener no time when the actor used the whole grace period', async () => {
    const { app, runtime, closeBudget } = shutdownFakes();
    const handle = await serveActor(app, { port: 0, signals: false, graceMs: 0 }, runtime);
    await handle.close();
    expect(closeBudget()).toBe(0);
  });
});
