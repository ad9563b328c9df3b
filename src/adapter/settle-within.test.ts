import { describe, expect, it } from 'vitest';
import { settleWithin } from './settle-within.js';

describe('settleWithin', () => {
  it('is true when the promise settles in time, fulfilled or rejected', async () => {
    expect(await settleWithin(Promise.resolve('done'), 1000)).toBe(true);
    expect(await settleWithin(Promise.reject(new Error('failed')), 1000)).toBe(true);
  });

  it('is false when the promise does not settle in time', async () => {
    expect(await settleWithin(new Promise(() => {}), 10)).toBe(false);
  });
});
