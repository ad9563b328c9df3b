import { afterEach, describe, expect, it, vi } from 'vitest';
import { callChatCompletions, ModelConnectionError, ModelStatusError } from './chat-completion-call.js';
import type { ModelHttpAnswer, ModelHttpTransport } from './model-http-transport.js';

const answer = (status: number, headers: Record<string, string> = {}, body = '{"ok":true}'): ModelHttpAnswer => ({
  status,
  header: (name) => headers[name],
  body,
});

/** A transport that gives `answers` in turn (an Error is a connection failure) and counts its calls. */
function scripted(...answers: (ModelHttpAnswer | Error)[]): ModelHttpTransport & { calls: number } {
  const transport = Object.assign(
    async () => {
      const next = answers[Math.min(transport.calls, answers.length - 1)]!;
      transport.calls += 1;
      if (next instanceof Error) throw next;
      return next;
    },
    { calls: 0 },
  );
  return transport;
}

const call = (transport: ModelHttpTransport, maxRetries: number, signal = new AbortController().signal) =>
  callChatCompletions({
    transport,
    url: new URL('http://model.test/v1/chat/completions'),
    headers: {},
    body: '{}',
    signal,
    maxRetries,
  });

afterEach(() => {
  vi.useRealTimers();
});

describe('callChatCompletions', () => {
  it('returns the JSON answer, and refuses a 2xx answer that is not JSON', async () => {
    expect(await call(scripted(answer(200)), 0)).toEqual({ ok: true });
    await expect(call(scripted(answer(200, {}, 'not json')), 0)).rejects.toThrow(/not JSON/);
  });

  it('retries 408, 409, 429 and 5xx, not other 4xx, unless x-should-retry says otherwise', async () => {
    const retryNow = { 'retry-after-ms': '0' };
    for (const status of [408, 409, 429, 500, 502, 503, 599]) {
      const transport = scripted(answer(status, retryNow), answer(200));
      expect(await call(transport, 1), String(status)).toEqual({ ok: true });
      expect(transport.calls).toBe(2);
    }
    for (const status of [400, 401, 403, 404, 413, 422]) {
      const transport = scripted(answer(status, retryNow, '{"error":"no"}'), answer(200));
      await expect(call(transport, 1)).rejects.toMatchObject({ status, body: { error: 'no' } });
      expect(transport.calls).toBe(1);
    }
    const told = scripted(answer(400, { ...retryNow, 'x-should-retry': 'true' }), answer(200));
    expect(await call(told, 1)).toEqual({ ok: true });
    const forbidden = scripted(answer(503, { ...retryNow, 'x-should-retry': 'false' }, 'down'));
    await expect(call(forbidden, 1)).rejects.toBeInstanceOf(ModelStatusError);
    expect(forbidden.calls).toBe(1);
  });

  it('stops after maxRetries: the last answer, or a ModelConnectionError when none came', async () => {
    const busy = scripted(answer(503, { 'retry-after-ms': '0' }, 'busy'));
    await expect(call(busy, 2)).rejects.toMatchObject({ status: 503, body: 'busy' });
    expect(busy.calls).toBe(3);
    const unreachable = scripted(new Error('ECONNREFUSED'));
    await expect(call(unreachable, 0)).rejects.toBeInstanceOf(ModelConnectionError);
    expect(unreachable.calls).toBe(1);
  });

  it('waits what the server asks: retry-after-ms first, then Retry-After in seconds or as a date', async () => {
    vi.useFakeTimers();
    // The date is written when its case runs (the fake clock moves on), to the second: it is 1 to 2 s away.
    for (const [headersOf, atLeast, atMost] of [
      [() => ({ 'retry-after-ms': '250', 'retry-after': '9' }), 250, 250],
      [() => ({ 'retry-after': '1.5' }), 1_500, 1_500],
      [() => ({ 'retry-after': new Date(Date.now() + 2_000).toUTCString() }), 1_000, 2_000],
    ] as const) {
      const headers = headersOf();
      const transport = scripted(answer(429, headers), answer(200));
      const done = call(transport, 1);
      await vi.advanceTimersByTimeAsync(atLeast - 1);
      expect(transport.calls, JSON.stringify(headers)).toBe(1);
      await vi.advanceTimersByTimeAsync(atMost - atLeast + 1);
      expect(await done).toEqual({ ok: true });
      expect(transport.calls).toBe(2);
    }
  });

  it('backs off from 0.5 s, doubling up to 8 s, less up to a quarter of jitter, when the server says nothing', async () => {
    vi.useFakeTimers();
    // Math.random() at its two ends: no jitter, and the whole quarter.
    for (const random of [0, 1]) {
      vi.spyOn(Math, 'random').mockReturnValue(random);
      const reset = new Error('reset');
      const transport = scripted(reset, reset, reset, reset, reset, reset, answer(200));
      const done = call(transport, 6);
      for (const [retry, full] of [
        [1, 500],
        [2, 1_000],
        [3, 2_000],
        [4, 4_000],
        [5, 8_000],
        [6, 8_000],
      ] as const) {
        const waits = full * (1 - random * 0.25);
        await vi.advanceTimersByTimeAsync(waits - 1);
        expect(transport.calls, `retry ${retry} before ${waits} ms`).toBe(retry);
        await vi.advanceTimersByTimeAsync(1);
        expect(transport.calls, `retry ${retry} at ${waits} ms`).toBe(retry + 1);
      }
      expect(await done).toEqual({ ok: true });
      vi.restoreAllMocks();
    }
  });

  it('ends a wait between tries early with the reason of its signal', async () => {
    const controller = new AbortController();
    const reason = new Error('deadline');
    setTimeout(() => controller.abort(reason), 20);
    const started = performance.now();
    await expect(call(scripted(answer(503, { 'retry-after': '60' })), 1, controller.signal)).rejects.toBe(reason);
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});
