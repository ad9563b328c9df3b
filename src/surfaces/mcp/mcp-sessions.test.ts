import { describe, expect, it } from 'vitest';
import { McpSessions } from './mcp-sessions.js';

function fakeSession() {
  let closed = 0;
  return { close: async () => void (closed += 1), get closed() { return closed; } };
}

describe('McpSessions', () => {
  it('caps the number of open sessions, counting those still being opened', () => {
    const sessions = new McpSessions<ReturnType<typeof fakeSession>>({ maxSessions: 2, idleMs: 1_000, now: () => 0 });
    expect(sessions.hasRoom()).toBe(true);
    expect(sessions.hasRoom(2)).toBe(false);
    sessions.add('a', fakeSession());
    expect(sessions.hasRoom(1)).toBe(false);
    sessions.add('b', fakeSession());
    expect(sessions.hasRoom()).toBe(false);
    sessions.remove('a');
    expect(sessions.hasRoom()).toBe(true);
  });

  it('closes a session unused for the idle time, and only that one; using a session keeps it', () => {
    let now = 0;
    const sessions = new McpSessions<ReturnType<typeof fakeSession>>({ maxSessions: 2, idleMs: 1_000, now: () => now });
    const idle = fakeSession();
    const busy = fakeSession();
    sessions.add('idle', idle);
    sessions.add('busy', busy);
    now = 600;
    expect(sessions.use('busy')).toBe(busy);
    now = 1_000;
    expect(sessions.use('idle')).toBeUndefined();
    expect(idle.closed).toBe(1);
    expect(sessions.use('busy')).toBe(busy);
    expect(busy.closed).toBe(0);
    expect(sessions.size).toBe(1);
  });

  it('a full table makes room once a session has idled out', () => {
    let now = 0;
    const sessions = new McpSessions<ReturnType<typeof fakeSession>>({ maxSessions: 1, idleMs: 1_000, now: () => now });
    sessions.add('old', fakeSession());
    expect(sessions.hasRoom()).toBe(false);
    now = 1_000;
    expect(sessions.hasRoom()).toBe(true);
  });

  it('closeAll closes every session once and says how many', async () => {
    const sessions = new McpSessions<ReturnType<typeof fakeSession>>({ maxSessions: 5, idleMs: 1_000 });
    const [a, b] = [fakeSession(), fakeSession()];
    sessions.add('a', a);
    sessions.add('b', b);
    expect(await sessions.closeAll()).toBe(2);
    expect([a.closed, b.closed]).toEqual([1, 1]);
    expect(sessions.use('a')).toBeUndefined();
    expect(await sessions.closeAll()).toBe(0);
  });
});
