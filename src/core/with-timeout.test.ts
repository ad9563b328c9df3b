import { describe, expect, it } from 'vitest';
import { withTimeout } from './with-timeout.js';

describe('withTimeout', () => {
  it('settles like the work when it finishes first', async () => {
    await expect(withTimeout(Promise.resolve(7), 60_000, () => 0)).resolves.toBe(7);
    await expect(withTimeout(Promise.reject(new Error('broke')), 60_000, () => 0)).rejects.toThrow('broke');
  });

  it('settles with the time-out value, or rejects with what the time-out throws', async () => {
    const never = new Promise<number>(() => {});
    await expect(withTimeout(never, 1, () => 'late' as const)).resolves.toBe('late');
    await expect(
      withTimeout(never, 1, () => {
        throw new Error('timed out');
      }),
    ).rejects.toThrow('timed out');
  });

  it('waits for ever on Infinity', async () => {
    await expect(
      withTimeout(new Promise((resolve) => setTimeout(() => resolve('done'), 5)), Infinity, () => 'late'),
    ).resolves.toBe('done');
  });
});
