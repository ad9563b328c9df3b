import { describe, expect, it } from 'vitest';
import { HistoryCache, type HistoryRow } from './history-cache.js';

const row = (id: string, content = `content of ${id}`): HistoryRow => ({
  id,
  role: 'user',
  content,
  data: null,
  created_at: '2025-01-01T00:00:00.000Z',
});
const rows = (from: number, to: number) => Array.from({ length: to - from }, (_, index) => row(`m${from + index}`));
const ids = (got: readonly HistoryRow[] | undefined) => got?.map((r) => r.id);

describe('HistoryCache', () => {
  it('answers a limit it holds, or any limit when it holds the whole session', () => {
    const cache = new HistoryCache();
    expect(cache.read('t', 's', 3)).toBeUndefined();
    cache.fill('t', 's', 3, rows(7, 10));
    expect(ids(cache.read('t', 's', 2))).toEqual(['m8', 'm9']);
    expect(ids(cache.read('t', 's', 3))).toEqual(['m7', 'm8', 'm9']);
    expect(cache.read('t', 's', 4)).toBeUndefined();
    cache.fill('t', 'short', 5, rows(0, 2));
    expect(ids(cache.read('t', 'short', 50))).toEqual(['m0', 'm1']);
  });

  it('hands out a fresh array each time', () => {
    const cache = new HistoryCache();
    cache.fill('t', 's', 5, rows(0, 2));
    const first = cache.read('t', 's', 5)!;
    first.pop();
    expect(cache.read('t', 's', 5)).toHaveLength(2);
    expect(cache.read('t', 's', 5)).not.toBe(cache.read('t', 's', 5));
  });

  it('appends to a session it holds, and takes in a session only when the append created it', () => {
    const cache = new HistoryCache();
    cache.read('t', 'x', 10);
    cache.fill('t', 'held', 10, rows(0, 2));
    cache.append([
      { tenantId: 't', sessionId: 'held', rows: rows(2, 4), createdSession: false },
      { tenantId: 't', sessionId: 'unknown', rows: rows(5, 6), createdSession: false },
      { tenantId: 't', sessionId: 'new', rows: rows(0, 1), createdSession: true },
      { tenantId: 't', sessionId: 'new', rows: rows(1, 2), createdSession: false },
    ]);
    expect(ids(cache.read('t', 'held', 10))).toEqual(['m0', 'm1', 'm2', 'm3']);
    expect(cache.read('t', 'unknown', 1)).toBeUndefined();
    expect(ids(cache.read('t', 'new', 10))).toEqual(['m0', 'm1']);
  });

  it('extends a tail it holds with rows read after it, with the new tag, within its bounds, leaving a tail handed out as it was', () => {
    const cache = new HistoryCache({ maxCharacters: 1_000 });
    cache.extend('t', 'unknown', 4, rows(0, 2), 'tag', undefined);
    expect(cache.tail('t', 'unknown')).toBeUndefined();
    cache.fill('t', 's', 4, rows(0, 2), 'first');
    const held = cache.tail('t', 's')!.rows;
    cache.extend('t', 's', 4, rows(2, 3), 'second', 'first');
    expect(cache.tail('t', 's')).toEqual({ rows: rows(0, 3), whole: true, tag: 'second' });
    expect(held).toEqual(rows(0, 2));
    cache.extend('t', 's', 4, rows(3, 6), 'third', 'second');
    expect(cache.tail('t', 's')).toEqual({ rows: rows(2, 6), whole: false, tag: 'third' });
    expect(cache.characters).toBe(rows(2, 6).reduce((sum, r) => sum + r.id.length + r.content.length + 24, 0));
    cache.extend('t', 's', 4, [row('big', 'x'.repeat(1_000))], 'fourth', 'third');
    expect(cache.tail('t', 's')).toBeUndefined();
    expect(cache.characters).toBe(0);
  });

  it('does not extend a tail another read changed since the rows were read after it', () => {
    const cache = new HistoryCache();
    cache.fill('t', 's', 10, rows(0, 2), 'first');
    cache.extend('t', 's', 10, rows(2, 4), 'second', 'first');
    cache.extend('t', 's', 10, rows(2, 4), 'second again', 'first');
    expect(cache.tail('t', 's')).toEqual({ rows: rows(0, 4), whole: true, tag: 'second' });
  });

  it('keeps no more than the largest limit asked, so a cut tail is no longer the whole session', () => {
    const cache = new HistoryCache();
    cache.fill('t', 's', 3, rows(0, 2));
    expect(ids(cache.read('t', 's', 3))).toEqual(['m0', 'm1']);
    cache.append([{ tenantId: 't', sessionId: 's', rows: rows(2, 5), createdSession: false }]);
    expect(ids(cache.read('t', 's', 3))).toEqual(['m2', 'm3', 'm4']);
    expect(cache.read('t', 's', 4)).toBeUndefined();
  });

  it('keeps at most maxMessages of a session, whatever limit is asked', () => {
    const cache = new HistoryCache({ maxMessages: 4 });
    expect(cache.read('t', 's', 100)).toBeUndefined();
    cache.fill('t', 's', 100, rows(0, 6));
    expect(cache.read('t', 's', 100)).toBeUndefined();
    expect(ids(cache.read('t', 's', 4))).toEqual(['m2', 'm3', 'm4', 'm5']);
  });

  it('holds at most maxSessions, dropping the least recently used', () => {
    const cache = new HistoryCache({ maxSessions: 3 });
    for (const session of ['a', 'b', 'c']) cache.fill('t', session, 5, rows(0, 1));
    cache.read('t', 'a', 5);
    cache.fill('t', 'd', 5, rows(0, 1));
    expect(cache.sessions).toBe(3);
    expect(cache.read('t', 'b', 5)).toBeUndefined();
    for (const session of ['a', 'c', 'd']) expect(ids(cache.read('t', session, 5))).toEqual(['m0']);
    for (let index = 0; index < 50; index += 1)
      cache.append([{ tenantId: 't', sessionId: `n${index}`, rows: rows(0, 1), createdSession: true }]);
    expect(cache.sessions).toBe(3);
  });

  it('holds at most maxCharacters of text, dropping the least recently used sessions, and a session larger than that not at all', () => {
    const cache = new HistoryCache({ maxCharacters: 130 });
    // 55 characters each: id 1, content 30, timestamp 24.
    const long = (id: string) => row(id, 'x'.repeat(30));
    cache.fill('t', 'a', 5, [long('1')]);
    cache.fill('t', 'b', 5, [long('2')]);
    expect(cache.sessions).toBe(2);
    cache.fill('t', 'c', 5, [long('3')]);
    expect(cache.characters).toBeLessThanOrEqual(130);
    expect(cache.read('t', 'a', 5)).toBeUndefined();
    cache.fill('t', 'huge', 5, [row('4', 'x'.repeat(200))]);
    expect(cache.read('t', 'huge', 5)).toBeUndefined();
    expect(cache.characters).toBeLessThanOrEqual(130);
  });

  it('empties itself when the data version changes, not when it stays', () => {
    const cache = new HistoryCache();
    cache.syncDataVersion(1);
    cache.fill('t', 's', 5, rows(0, 1));
    cache.syncDataVersion(1);
    expect(cache.sessions).toBe(1);
    cache.syncDataVersion(2);
    expect(cache.sessions).toBe(0);
    expect(cache.characters).toBe(0);
  });

  it('keeps apart sessions whose tenant and session ids join to the same text', () => {
    const cache = new HistoryCache();
    cache.fill('ab', 'c', 5, rows(0, 1));
    cache.fill('a', 'bc', 5, rows(1, 2));
    expect(ids(cache.read('ab', 'c', 5))).toEqual(['m0']);
    expect(ids(cache.read('a', 'bc', 5))).toEqual(['m1']);
  });

  it('never keeps a key or text SQLite would not give back as it was, and empties itself on such an append', () => {
    const cache = new HistoryCache();
    cache.fill('t\u0000', 's', 5, rows(0, 1));
    cache.fill('t', '\uD800', 5, rows(0, 1));
    cache.fill('t', 's', 5, [row('m0', 'cut\u0000here')]);
    expect(cache.sessions).toBe(0);
    cache.fill('t', 'held', 5, rows(0, 1));
    // In libSQL, 'held\u0000x' is cut to 'held': the append may land in a session the cache holds.
    cache.append([{ tenantId: 't', sessionId: 'held\u0000x', rows: rows(1, 2), createdSession: false }]);
    expect(cache.sessions).toBe(0);
    cache.fill('t', 'held', 5, rows(0, 1));
    cache.append([{ tenantId: 't', sessionId: 'held', rows: [row('m1', 'lone \uDC00')], createdSession: false }]);
    expect(cache.sessions).toBe(0);
  });

  it('refuses bounds that are not positive integers', () => {
    expect(() => new HistoryCache({ maxSessions: 0 })).toThrow(/maxSessions must be a positive integer/);
    expect(() => new HistoryCache({ maxMessages: 1.5 })).toThrow(/maxMessages must be a positive integer/);
    expect(() => new HistoryCache({ maxCharacters: Number.NaN })).toThrow(/maxCharacters must be a positive integer/);
  });
});
