import { describe, expect, it } from 'vitest';
import { isRetriedAnswer, retryDelayMs, waitBeforeRetry } from './model-call-retries.js';

const headers = (values: Record<string, string>) => (name: string) => values[name];

describe('isRetriedAnswer', () => {
  it('retries 408, 409, 429 and 5xx, not other 4xx, unless x-should-retry says otherwise', () => {
    expect([408, 409, 429, 500, 502, 503, 599].every((status) => isRetriedAnswer(status, undefined))).toBe(true);
    expect([400, 401, 403, 404, 413, 422].some((status) => isRetriedAnswer(status, undefined))).toBe(false);
    expect(isRetriedAnswer(400, 'true')).toBe(true);
    expect(isRetriedAnswer(503, 'false')).toBe(false);
  });
});

describe('retryDelayMs', () => {
  it('waits what the server asks: retry-after-ms first, then Retry-After in seconds or as a date', () => {
    expect(retryDelayMs(1, headers({ 'retry-after-ms': '250', 'retry-after': '9' }))).toBe(250);
    expect(retryDelayMs(1, headers({ 'retry-after': '1.5' }))).toBe(1_500);
    const inTwoSeconds = new Date(Date.now() + 2_000).toUTCString();
    expect(retryDelayMs(1, headers({ 'retry-after': inTwoSeconds }))).toBeGreaterThan(900);
    expect(retryDelayMs(1, headers({ 'retry-after': inTwoSeconds }))).toBeLessThanOrEqual(2_000);
  });

  it('backs off from 0.5 s, doubling up to 8 s, less up to a quarter of jitter, when the server says nothing', () => {
    for (const [retry, full] of [
      [1, 500],
      [2, 1_000],
      [3, 2_000],
      [5, 8_000],
      [9, 8_000],
    ] as const) {
      const delay = retryDelayMs(retry, headers({}));
      expect(delay).toBeLessThanOrEqual(full);
      expect(delay).toBeGreaterThanOrEqual(full * 0.75);
    }
  });
});

describe('waitBeforeRetry', () => {
  it('ends early with the reason of its signal', async () => {
    const controller = new AbortController();
    const reason = new Error('deadline');
    setTimeout(() => controller.abort(reason), 20);
    const started = performance.now();
    await expect(waitBeforeRetry(60_000, controller.signal)).rejects.toBe(reason);
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});
