import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLogger, createMemorySink, type Logger } from './logger.js';

describe('createLogger', () => {
  afterEach(() => vi.useRealTimers());

  it('stamps each line with the time it was written, to the millisecond, as the clock moves either way', () => {
    const sink = createMemorySink();
    const log = createLogger({ sink });
    vi.useFakeTimers();
    for (const time of [
      '2026-01-02T03:04:05.006Z',
      '2026-01-02T03:04:05.006Z',
      '2026-01-02T03:04:05.007Z',
      '2025-12-31T23:59:59.999Z',
    ]) {
      vi.setSystemTime(new Date(time));
      log.info('actor_listening', { port: 8080 });
    }
    expect(sink.records.map((record) => record.time)).toEqual([
      '2026-01-02T03:04:05.006Z',
      '2026-01-02T03:04:05.006Z',
      '2026-01-02T03:04:05.007Z',
      '2025-12-31T23:59:59.999Z',
    ]);
  });

  it('takes the events of LOG_EVENTS, each only at its levels (a typo fails the compile)', () => {
    const sink = createMemorySink();
    const log = createLogger({ sink, level: 'debug' });
    log.info('actor_listening', { port: 8080 });
    log.warn('model_call_failed');
    log.info('weather_client_initialized');
    // @ts-expect-error a typo of actor_listening
    log.info('actor_listenin');
    // @ts-expect-error model_call_failed is a warning, not an info line
    log.info('model_call_failed');
    // @ts-expect-error a child logger takes the same events
    log.child({ request_id: 'r-1' }).error('actor_listenin');
    expect(sink.records.map((record) => `${record.level} ${record.event}`)).toEqual([
      'info actor_listening',
      'warn model_call_failed',
      'info weather_client_initialized',
      'info actor_listenin',
      'info model_call_failed',
      'error actor_listenin',
    ]);
  });

  it('takes an actor’s own events when its type names them', () => {
    const sink = createMemorySink();
    const runtime = createLogger({ sink });
    const actorLog: Logger<string> = runtime;
    actorLog.info('order_placed', { order_id: 'o-1' });
    createLogger<'order_failed'>({ sink }).warn('order_failed');
    expect(sink.records.map((record) => record.event)).toEqual(['order_placed', 'order_failed']);
  });
});
