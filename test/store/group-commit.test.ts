import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLogger, createMemorySink, silentLogger } from '../../src/log/logger.js';
import { DatabaseMonitor } from '../../src/store/database-monitor.js';
import { GroupCommit } from '../../src/store/group-commit.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { openStore } from '../../src/store/open-store.js';
import type { TurnToSave, Store, StoredMessage } from '../../src/store/store.js';
import { checkedTurnToSave } from '../../src/store/store-input-validation.js';
import { injectFaults } from './faulty-store.js';
import { invocation } from '../../src/testing/test-invocation.js';

const opened: Store[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((store) => store.close()));
});

/** A buffer over a migrated in-memory SQLite store whose calls can be made to fail. */
async function setup(options: { retryIntervalMs?: number; timeoutMs?: number } = {}) {
  const sqlite = await openStore({ url: 'memory://', logger: silentLogger });
  opened.push(sqlite);
  await sqlite.migrate();
  const faulty = injectFaults(sqlite);
  const sink = createMemorySink();
  const monitor = new DatabaseMonitor(faulty.store, { logger: silentLogger });
  const buffer = new GroupCommit(faulty.store, {
    logger: createLogger({ sink }),
    monitor,
    retryIntervalMs: 60_000,
    ...options,
  });
  const events = () => sink.records.map((record) => record.event);
  return { sqlite, faulty, buffer, monitor, events };
}

function message(id: string, role: StoredMessage['role'] = 'user'): StoredMessage {
  return { id, role, content: `content of ${id}`, createdAt: '2025-01-01T00:00:00.000Z' };
}

describe('GroupCommit', () => {
  it('writes through while the store answers', async () => {
    const { sqlite, buffer, monitor } = await setup();
    expect(await buffer.saveTurn(invocation())).toEqual({ persisted: true });
    expect(buffer.pending).toBe(0);
    expect((await sqlite.readStats()).invocations).toBe(1);
    expect(monitor.status().status).toBe('pass');
  });

  it('lets records that arrive together, or during a write, share one write', async () => {
    const { sqlite, faulty, buffer } = await setup();
    const together = await Promise.all(Array.from({ length: 20 }, () => buffer.saveTurn(invocation())));
    expect(together.every((result) => result.persisted)).toBe(true);
    const first = buffer.saveTurn(invocation());
    await new Promise((resolve) => setImmediate(resolve));
    const later = Array.from({ length: 5 }, () => buffer.saveTurn(invocation()));
    expect(await Promise.all([first, ...later])).toEqual(Array.from({ length: 6 }, () => ({ persisted: true })));
    expect(faulty.writes.map((batch) => batch.length)).toEqual([20, 1, 5]);
    expect((await sqlite.readStats()).invocations).toBe(26);
  });

  it('hands the store the frozen copies it checked, so the store does not check them again', async () => {
    const { faulty, buffer } = await setup();
    await buffer.saveTurn(invocation({ history: [message('q')] }));
    const [written] = faulty.writes[0] as TurnToSave[];
    expect(Object.isFrozen(written)).toBe(true);
    expect(checkedTurnToSave(written!)).toBe(written);
  });

  it('writes a group in call order, and a record alone when nothing else waits', async () => {
    const { faulty, buffer } = await setup();
    const records = Array.from({ length: 3 }, () => invocation());
    await Promise.all(records.map((record) => buffer.saveTurn(record)));
    await buffer.saveTurn(invocation());
    await buffer.saveTurn(invocation());
    expect(faulty.writes.map((batch) => batch.length)).toEqual([3, 1, 1]);
    expect(faulty.writes[0]!.map((record) => record.id)).toEqual(records.map((record) => record.id));
  });

  it('fails only the record the database refuses: the group is written again one record at a time', async () => {
    const { sqlite, faulty, buffer, events } = await setup();
    faulty.mode = 'refuse-poison';
    const turns = ['first', 'poison', 'last'].map((word) =>
      invocation({ sessionId: 'chat', history: [message(word)] }),
    );
    expect(await Promise.all(turns.map((turn) => buffer.saveTurn(turn)))).toEqual([
      { persisted: true, historySaved: true },
      { persisted: true, historySaved: false },
      { persisted: true, historySaved: true },
    ]);
    expect(faulty.writes.map((batch) => batch.map((record) => record.id))).toEqual(turns.map((turn) => [turn.id]));
    expect((await sqlite.loadHistory('acme', 'chat', 10)).map((m) => m.id)).toEqual(['first', 'last']);
    expect((await sqlite.readStats()).invocations).toBe(3);
    expect(buffer.pending).toBe(0);
    expect(events()).toEqual(['history_write_failed']);
  });

  it('keeps the records of a store closed under them, and flush names them', async () => {
    const { sqlite, buffer } = await setup();
    await sqlite.close();
    expect(await Promise.all([buffer.saveTurn(invocation()), buffer.saveTurn(invocation())])).toEqual([
      { persisted: false },
      { persisted: false },
    ]);
    expect(buffer.pending).toBe(2);
    await expect(buffer.flush()).rejects.toThrow('2 invocation records could not be written to the sqlite store');
  });

  it('keeps records during an outage, logs it once, stays exact, and writes them when the store returns', async () => {
    const { sqlite, faulty, buffer, monitor, events } = await setup();
    await buffer.saveTurn(invocation());
    expect((await buffer.readStats()).invocations).toBe(1);
    expect((await buffer.readStats('globex')).invocations).toBe(0);
    faulty.mode = 'fail';
    const during = [invocation({ outcome: 'error' }), invocation({ tenantId: 'globex' }), invocation()];
    for (const record of during) expect(await buffer.saveTurn(record)).toEqual({ persisted: false });
    expect(buffer.pending).toBe(3);
    expect(monitor.status().status).toBe('warn');
    expect(events()).toEqual(['invocation_store_unavailable']);
    expect(await buffer.readStats()).toMatchObject({ invocations: 4, errors: 1, tenants: 2 });
    expect(await buffer.readStats('globex')).toMatchObject({ invocations: 1, tenants: 1 });

    faulty.mode = 'ok';
    await buffer.saveTurn(invocation());
    await vi.waitFor(() => expect(buffer.pending).toBe(0));
    expect(await sqlite.readStats()).toMatchObject({ invocations: 5, errors: 1, tenants: 2 });
    expect(await buffer.readStats()).toMatchObject({ invocations: 5 });
    expect(events()).toEqual(['invocation_store_unavailable', 'invocation_store_recovered']);
    expect(monitor.status().status).toBe('pass');
  });

  it('retries on its timer without further records', async () => {
    const { sqlite, faulty, buffer } = await setup({ retryIntervalMs: 10 });
    faulty.mode = 'fail';
    await buffer.saveTurn(invocation());
    await buffer.saveTurn(invocation());
    faulty.mode = 'ok';
    await vi.waitFor(() => expect(buffer.pending).toBe(0));
    expect((await sqlite.readStats()).invocations).toBe(2);
  });

  it('counts once a write whose reply was lost after it committed', async () => {
    const { sqlite, faulty, buffer } = await setup();
    faulty.mode = 'fail-after-write';
    expect(await buffer.saveTurn(invocation())).toEqual({ persisted: false });
    expect(buffer.pending).toBe(1);
    faulty.mode = 'ok';
    await buffer.flush();
    expect(faulty.writes).toHaveLength(2);
    expect((await sqlite.readStats()).invocations).toBe(1);
  });

  it('gives up waiting for a store that hangs, and still counts once', async () => {
    const { sqlite, faulty, buffer } = await setup({ timeoutMs: 30 });
    faulty.mode = 'hang';
    expect(await buffer.saveTurn(invocation())).toEqual({ persisted: false });
    faulty.mode = 'ok';
    await buffer.flush();
    expect((await sqlite.readStats()).invocations).toBe(1);
  });

  it('answers stats from its last snapshot plus its own writes when the store cannot be read', async () => {
    const { faulty, buffer } = await setup();
    faulty.mode = 'fail';
    await expect(buffer.readStats()).rejects.toThrow('injected fault');
    faulty.mode = 'ok';
    await buffer.saveTurn(invocation({ userIdentifier: 'ann', sessionId: 'a' }));
    await buffer.readStats();
    await buffer.readStats('acme');
    await buffer.saveTurn(invocation({ userIdentifier: 'bob', sessionId: 'b', latencyMs: 900 }));
    faulty.mode = 'fail';
    await buffer.saveTurn(invocation({ tenantId: 'globex' }));
    const total = await buffer.readStats();
    expect(total).toMatchObject({
      invocations: 3,
      errors: 0,
      inputTokens: 30,
      latencyMsMax: 900,
      lastInvokedAt: expect.any(String),
    });
    expect(await buffer.readStats('acme')).toMatchObject({ invocations: 2, tenants: 1 });
    // Distinct counts are a lower bound while the database is away: at least what the snapshot and the waiting records show.
    expect(total.tenants).toBeGreaterThanOrEqual(1);
    expect(total.tenants).toBeLessThanOrEqual(2);
    expect(total.users).toBeGreaterThanOrEqual(1);
    expect(total.users).toBeLessThanOrEqual(3);
    await expect(buffer.readStats('never-read')).rejects.toThrow('injected fault');
  });

  it('writes waiting records in the order they were recorded', async () => {
    const { faulty, buffer } = await setup();
    faulty.mode = 'fail';
    const records = Array.from({ length: 7 }, () => invocation());
    await Promise.all(records.map((record) => buffer.saveTurn(record)));
    faulty.mode = 'ok';
    await buffer.flush();
    expect(faulty.writes.flat().map((record) => record.id)).toEqual(records.map((record) => record.id));
  });

  it('writes waiting records in batches', async () => {
    const store = new MemoryStore();
    const faulty = injectFaults(store);
    const buffer = new GroupCommit(faulty.store, { logger: silentLogger, batchSize: 4, retryIntervalMs: 60_000 });
    faulty.mode = 'fail';
    for (let index = 0; index < 10; index += 1) await buffer.saveTurn(invocation());
    faulty.mode = 'ok';
    await buffer.flush();
    expect(faulty.writes.map((batch) => batch.length)).toEqual([4, 4, 2]);
    expect((await store.readStats()).invocations).toBe(10);
  });

  it('flush rejects, naming what still waits, while the store is down', async () => {
    const { faulty, buffer } = await setup();
    faulty.mode = 'fail';
    await buffer.saveTurn(invocation());
    await buffer.saveTurn(invocation());
    await expect(buffer.flush()).rejects.toThrow('2 invocation records could not be written to the sqlite store');
    expect(buffer.pending).toBe(2);
    faulty.mode = 'ok';
    await buffer.flush();
    expect(buffer.pending).toBe(0);
  });

  it('writes a record and its history in the same write', async () => {
    const { sqlite, faulty, buffer } = await setup();
    const history = [message('q'), message('a', 'assistant')];
    expect(await buffer.saveTurn(invocation({ sessionId: 'chat', history }))).toEqual({
      persisted: true,
      historySaved: true,
    });
    expect(faulty.writes).toHaveLength(1);
    expect((await sqlite.loadHistory('acme', 'chat', 10)).map((m) => m.id)).toEqual(['q', 'a']);
    expect((await sqlite.readStats()).invocations).toBe(1);
  });

  it('never keeps history in memory: during an outage it is written alone if it can be, else not saved', async () => {
    const { sqlite, faulty, buffer } = await setup();
    faulty.mode = 'fail';
    expect(await buffer.saveTurn(invocation({ sessionId: 'chat', history: [message('lost')] }))).toEqual({
      persisted: false,
      historySaved: false,
    });
    faulty.mode = 'ok';
    // Records still wait (the retry timer has not fired): this one waits too, its history is written at once.
    expect(await buffer.saveTurn(invocation({ sessionId: 'chat', history: [message('kept')] }))).toEqual({
      persisted: false,
      historySaved: true,
    });
    await buffer.flush();
    expect((await sqlite.readStats()).invocations).toBe(2);
    expect((await sqlite.loadHistory('acme', 'chat', 10)).map((m) => m.id)).toEqual(['kept']);
  });

  it('drops a history that is not valid, with an error log, and still counts the record', async () => {
    const { sqlite, buffer, events } = await setup();
    const bad = [message('m', 'robot' as 'user')];
    expect(await buffer.saveTurn(invocation({ sessionId: 'chat', history: bad }))).toEqual({
      persisted: true,
      historySaved: false,
    });
    expect(events()).toEqual(['invocation_history_invalid']);
    expect((await sqlite.readStats()).invocations).toBe(1);
    expect(await sqlite.loadHistory('acme', 'chat', 10)).toEqual([]);
  });

  it('drops an invalid record with an error log and never rejects', async () => {
    const { sqlite, buffer, events } = await setup();
    expect(await buffer.saveTurn(invocation({ inputTokens: -5 }))).toEqual({ persisted: false });
    expect(await buffer.saveTurn(null as never)).toEqual({ persisted: false });
    expect(buffer.pending).toBe(0);
    expect(events()).toEqual(['invocation_record_invalid', 'invocation_record_invalid']);
    expect((await sqlite.readStats()).invocations).toBe(0);
  });

  it('stays exact through an outage in the middle of concurrent load', async () => {
    const { sqlite, faulty, buffer } = await setup({ retryIntervalMs: 5 });
    let sent = 0;
    const worker = async () => {
      while (sent < 600) {
        sent += 1;
        if (sent === 150) faulty.mode = 'fail';
        if (sent === 300) faulty.mode = 'fail-after-write';
        if (sent === 400) faulty.mode = 'ok';
        await buffer.saveTurn(invocation({ sessionId: `s-${sent % 13}` }));
      }
    };
    await Promise.all(Array.from({ length: 20 }, worker));
    await buffer.flush();
    expect(await sqlite.readStats()).toMatchObject({ invocations: 600, sessions: 13 });
    expect(await buffer.readStats()).toMatchObject({ invocations: 600, sessions: 13 });
  });
});
