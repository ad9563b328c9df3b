import { describe, expect, it } from 'vitest';
import { SerialQueue } from './serial-queue.js';
import { WriteGroup } from './write-group.js';

/** A fake database: a transaction is a list of the writes it ran, kept only when it commits. */
function fakeDatabase() {
  const committed: string[][] = [];
  const queue = new SerialQueue();
  const group = new WriteGroup<string[]>({
    schedule: (task) => queue.run(task),
    transaction: async (work) => {
      const writes: string[] = [];
      const result = await work(writes);
      committed.push(writes);
      return result;
    },
  });
  return { committed, queue, group };
}

describe('WriteGroup', () => {
  it('runs the writes asked for while the connection is busy in one transaction, in call order', async () => {
    const { committed, queue, group } = fakeDatabase();
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const busy = queue.run(() => held);
    const results = ['a', 'b', 'c'].map((name) => group.run(async (writes) => (writes.push(name), `${name}!`)));
    release();
    await busy;
    expect(await Promise.all(results)).toEqual(['a!', 'b!', 'c!']);
    expect(committed).toEqual([['a', 'b', 'c']]);
  });

  it('runs a write alone when nothing else waits', async () => {
    const { committed, group } = fakeDatabase();
    expect(await group.run(async (writes) => (writes.push('only'), 1))).toBe(1);
    expect(await group.run(async (writes) => (writes.push('next'), 2))).toBe(2);
    expect(committed).toEqual([['only'], ['next']]);
  });

  it('fails only the write that fails: the group is rolled back and the others run alone', async () => {
    const { committed, queue, group } = fakeDatabase();
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const busy = queue.run(() => held);
    const good = group.run(async (writes) => (writes.push('good'), 'ok'));
    const bad = group.run(async (writes) => {
      writes.push('bad');
      throw new Error('constraint failed');
    });
    const later = group.run(async (writes) => (writes.push('later'), 'ok too'));
    release();
    await busy;
    await expect(bad).rejects.toThrow('constraint failed');
    expect(await good).toBe('ok');
    expect(await later).toBe('ok too');
    expect(committed).toEqual([['good'], ['later']]);
  });

  it('rejects every waiting write when the connection cannot be scheduled, and settles', async () => {
    const group = new WriteGroup<string[]>({
      schedule: () => Promise.reject(new Error('The store is closed')),
      transaction: (work) => work([]),
    });
    const writes = [group.run(async () => 1), group.run(async () => 2)];
    await expect(writes[0]).rejects.toThrow('The store is closed');
    await expect(writes[1]).rejects.toThrow('The store is closed');
    await expect(group.settled()).resolves.toBeUndefined();
  });
});
