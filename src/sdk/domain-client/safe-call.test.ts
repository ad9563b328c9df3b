import { describe, expect, expectTypeOf, it } from 'vitest';
import { createLogger, createMemorySink } from '../../log/logger.js';
import { DomainClientError } from './domain-client-error.js';
import { safeCall } from './safe-call.js';

function memoryLogger() {
  const sink = createMemorySink();
  return { sink, logger: createLogger({ sink, level: 'debug' }) };
}

describe('safeCall', () => {
  it('returns the value of a call that succeeds, sync or async, and logs nothing', async () => {
    const { sink, logger } = memoryLogger();
    await expect(safeCall(() => 42, { fallback: 0, action: 'sync', logger })).resolves.toBe(42);
    await expect(safeCall(async () => 'ok', { fallback: 'no', action: 'async', logger })).resolves.toBe('ok');
    expect(sink.records).toEqual([]);
  });

  it('takes a fallback wider than the call (null for a reading): the result is either', async () => {
    const { logger } = memoryLogger();
    const reading = async (): Promise<{ temp_c: number }> => ({ temp_c: 21 });
    const result = await safeCall(reading, { fallback: { temp_c: null }, action: 'read_temperature', logger });
    expectTypeOf(result).toEqualTypeOf<{ temp_c: number } | { temp_c: null }>();
    expect(result).toEqual({ temp_c: 21 });
    const missing = await safeCall(() => Promise.reject(new Error('down')), { fallback: null, action: 'read', logger });
    expect(missing).toBeNull();
  });

  it('turns a synchronous throw into the fallback and one warning', async () => {
    const { sink, logger } = memoryLogger();
    const result = await safeCall(
      () => {
        throw new Error('boom');
      },
      { fallback: 'fallback', action: 'explode', logger },
    );
    expect(result).toBe('fallback');
    expect(sink.records).toHaveLength(1);
    expect(sink.records[0]).toMatchObject({
      level: 'warn',
      event: 'safe_call_failed',
      action: 'explode',
      reason: 'error',
    });
    expect((sink.records[0]?.error as Error | undefined)?.message).toBe('boom');
  });

  it('turns a rejection into the fallback, carrying a DomainClientError’s event name', async () => {
    const { sink, logger } = memoryLogger();
    const result = await safeCall(() => Promise.reject(new DomainClientError('geo_lookup_failed', 'no such city')), {
      fallback: null,
      action: 'lookup_city',
      logger,
    });
    expect(result).toBeNull();
    expect(sink.records).toHaveLength(1);
    expect(sink.records[0]).toMatchObject({
      event: 'safe_call_failed',
      action: 'lookup_city',
      error_event: 'geo_lookup_failed',
    });
  });

  it('gives up after timeoutMs, aborts the call’s signal and ignores its late rejection', async () => {
    const { sink, logger } = memoryLogger();
    let signal: AbortSignal | undefined;
    let rejectLate: (error: Error) => void = () => {};
    const result = await safeCall(
      (given) => {
        signal = given;
        return new Promise<string>((_resolve, reject) => {
          rejectLate = reject;
        });
      },
      { fallback: 'cached', action: 'slow_service', timeoutMs: 20, logger },
    );
    expect(result).toBe('cached');
    expect(signal?.aborted).toBe(true);
    rejectLate(new Error('late'));
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(sink.records).toHaveLength(1);
    expect(sink.records[0]).toMatchObject({
      event: 'safe_call_failed',
      action: 'slow_service',
      reason: 'timeout',
      timeout_ms: 20,
    });
  });

  it('never throws, even when the log sink itself throws', async () => {
    const logger = createLogger({
      sink: () => {
        throw new Error('sink down');
      },
    });
    await expect(
      safeCall(
        () => {
          throw new Error('boom');
        },
        { fallback: 1, action: 'double_fault', logger },
      ),
    ).resolves.toBe(1);
  });

  it('does not let the action be overwritten by an error’s fields', async () => {
    const { sink, logger } = memoryLogger();
    await safeCall(
      () =>
        Promise.reject(new DomainClientError('x_failed', 'x', { fields: { action: 'spoofed', reason: 'spoofed' } })),
      {
        fallback: undefined,
        action: 'real_action',
        logger,
      },
    );
    expect(sink.records[0]).toMatchObject({ action: 'real_action', reason: 'error' });
  });
});

describe('DomainClientError', () => {
  it('carries a stable event name, fields and cause', () => {
    const cause = new Error('socket hang up');
    const error = new DomainClientError('weather_api_unavailable', 'upstream down', { cause, fields: { status: 502 } });
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({
      name: 'DomainClientError',
      event: 'weather_api_unavailable',
      message: 'upstream down',
      fields: { status: 502 },
    });
    expect(error.cause).toBe(cause);
  });
});
