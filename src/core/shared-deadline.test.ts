import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SharedDeadline } from './shared-deadline.js';

const never = () => new Promise<string>(() => {});
const later = (ms: number, value: string) => new Promise<string>((resolve) => setTimeout(() => resolve(value), ms));

describe('SharedDeadline', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('settles like the work when it finishes first, value or error', async () => {
    const deadline = new SharedDeadline(100);
    const done = deadline.bound(later(10, 'done'), () => 'late');
    const broke = expect(deadline.bound(Promise.reject(new Error('broke')), () => 'late')).rejects.toThrow('broke');
    await vi.advanceTimersByTimeAsync(10);
    await expect(done).resolves.toBe('done');
    await broke;
    expect(vi.getTimerCount()).toBeLessThanOrEqual(1);
  });

  it('settles with the time-out value, or rejects with what the time-out throws', async () => {
    const deadline = new SharedDeadline(100);
    const late = deadline.bound(never(), () => 'late' as const);
    const thrown = deadline.bound(never(), () => {
      throw new Error('timed out');
    });
    const rejection = expect(thrown).rejects.toThrow('timed out');
    await vi.advanceTimersByTimeAsync(100);
    await expect(late).resolves.toBe('late');
    await rejection;
  });

  it('gives each call its own full time, with one timer between them', async () => {
    const deadline = new SharedDeadline(100);
    const expired: string[] = [];
    const call = (name: string, work: Promise<string>) => void deadline.bound(work, () => expired.push(name));
    call('first', never());
    await vi.advanceTimersByTimeAsync(40);
    call('second', never());
    call('answered', later(50, 'ok'));
    expect(vi.getTimerCount()).toBe(2); // the deadline's one timer, and the answered call's own work
    await vi.advanceTimersByTimeAsync(60); // t = 100: the first is due, the second is not
    expect(expired).toEqual(['first']);
    await vi.advanceTimersByTimeAsync(39); // t = 139
    expect(expired).toEqual(['first']);
    await vi.advanceTimersByTimeAsync(1); // t = 140: the second's 100 ms are up
    expect(expired).toEqual(['first', 'second']);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('waits for ever on Infinity', async () => {
    const deadline = new SharedDeadline(Infinity);
    const done = deadline.bound(later(5_000_000, 'done'), () => 'late');
    await vi.advanceTimersByTimeAsync(5_000_000);
    await expect(done).resolves.toBe('done');
  });
});
