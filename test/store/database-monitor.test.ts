import { describe, expect, it } from 'vitest';
import { createLogger, createMemorySink, silentLogger } from '../../src/log/logger.js';
import { DatabaseMonitor } from '../../src/store/database-monitor.js';

/** A store whose ping is answered by the test, one call at a time. */
function controllableStore() {
  const calls: { resolve: () => void; reject: (error: Error) => void }[] = [];
  return {
    kind: 'postgres',
    calls,
    ping: () => new Promise<void>((resolve, reject) => calls.push({ resolve, reject })),
  };
}

function clock(start = 1_000_000) {
  const time = { now: start };
  return Object.assign(time, { read: () => time.now });
}

describe('DatabaseMonitor', () => {
  it('warns until the first check, then passes', () => {
    const monitor = new DatabaseMonitor(controllableStore(), { logger: silentLogger });
    expect(monitor.status()).toEqual({ status: 'warn', output: 'postgres: not checked yet', kind: 'postgres' });
    monitor.noteSuccess();
    expect(monitor.status()).toEqual({ status: 'pass', output: 'postgres: reachable', kind: 'postgres' });
  });

  it('warns while failing briefly, fails after failAfterMs, and passes again on success', () => {
    const time = clock();
    const sink = createMemorySink();
    const monitor = new DatabaseMonitor(controllableStore(), {
      now: time.read,
      failAfterMs: 30_000,
      logger: createLogger({ sink }),
    });
    monitor.noteSuccess();
    monitor.noteFailure(new Error('connect ECONNREFUSED 127.0.0.1:5432\nstack line'));
    time.now += 12_000;
    monitor.noteFailure(new Error('connect ECONNREFUSED 127.0.0.1:5432'));
    expect(monitor.status()).toEqual({
      status: 'warn',
      output: 'postgres: unreachable for 12 s (2 failed checks): connect ECONNREFUSED 127.0.0.1:5432',
      kind: 'postgres',
    });
    time.now += 18_000;
    expect(monitor.status().status).toBe('fail');
    monitor.noteSuccess();
    expect(monitor.status().status).toBe('pass');
    expect(sink.records.map((record) => [record.level, record.event])).toEqual([
      ['warn', 'database_unreachable'],
      ['info', 'database_reachable'],
    ]);
  });

  it('refresh() returns at once and pings in the background only when the state is stale', async () => {
    const time = clock();
    const store = controllableStore();
    const monitor = new DatabaseMonitor(store, { now: time.read, maxAgeMs: 5_000, logger: silentLogger });
    monitor.refresh();
    monitor.refresh();
    expect(store.calls).toHaveLength(1);
    expect(monitor.status().status).toBe('warn');
    store.calls[0]!.resolve();
    await monitor.settled();
    expect(monitor.status().status).toBe('pass');
    time.now += 4_999;
    monitor.refresh();
    expect(store.calls).toHaveLength(1);
    time.now += 1;
    monitor.refresh();
    expect(store.calls).toHaveLength(2);
    store.calls[1]!.reject(new Error('password authentication failed for user "actor"'));
    await monitor.settled();
    expect(monitor.status()).toMatchObject({
      status: 'warn',
      output: expect.stringContaining('password authentication failed'),
    });
  });

  it('counts a ping that never answers as a failure', async () => {
    const monitor = new DatabaseMonitor(controllableStore(), { pingTimeoutMs: 20, logger: silentLogger });
    monitor.refresh();
    await monitor.settled();
    expect(monitor.status()).toMatchObject({
      status: 'warn',
      output: expect.stringContaining('ping timed out after 20 ms'),
    });
  });

  it('counts a ping that throws synchronously as a failure', async () => {
    const monitor = new DatabaseMonitor(
      {
        kind: 'sqlite',
        ping: () => {
          throw new Error('client closed');
        },
      },
      { logger: silentLogger },
    );
    monitor.refresh();
    await monitor.settled();
    expect(monitor.status()).toMatchObject({
      status: 'warn',
      output: 'sqlite: unreachable for 0 s (1 failed check): client closed',
    });
  });

  it('shortens a long error message', () => {
    const monitor = new DatabaseMonitor(controllableStore(), { logger: silentLogger });
    monitor.noteFailure(new Error('x'.repeat(500)));
    expect(monitor.status().output.length).toBeLessThan(300);
  });
});
