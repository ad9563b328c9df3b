import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Libsql from 'libsql';
import { afterAll, describe, expect, it } from 'vitest';
import {
  type Connection,
  exactWrite,
  leanWrite,
  makeTurn,
  preparer,
  type Turn,
} from '../../bench/storage/turn-writes.js';
import { silentLogger } from '../../src/log/logger.js';
import { openStore } from '../../src/store/open-store.js';

const dir = mkdtempSync(join(tmpdir(), 'actorkit-turn-writes-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TURNS = 300;
const GROUP = 32;

/** A migrated SQLite file, written by the store's own migrations. */
async function migratedFile(name: string): Promise<string> {
  const path = join(dir, name);
  const store = await openStore({ url: `file:${path}`, logger: silentLogger });
  await store.migrate();
  await store.close();
  return path;
}

function groups(): Turn[][] {
  const turns = Array.from({ length: TURNS }, (_, index) => makeTurn(index));
  return Array.from({ length: Math.ceil(TURNS / GROUP) }, (_, index) =>
    turns.slice(index * GROUP, (index + 1) * GROUP),
  );
}

/** Writes every group with `write` on a libSQL connection, one transaction per group, as the storage limit does. */
function writeStraight(path: string, write: typeof exactWrite): void {
  const connection = new Libsql(path) as unknown as Connection;
  const prepare = preparer(connection);
  for (const group of groups()) {
    connection.exec('BEGIN IMMEDIATE');
    write(prepare, group);
    connection.exec('COMMIT');
  }
  connection.close();
}

/** What the actor's store reads back: the stats without timestamps, and one session's history. */
async function readBack(path: string) {
  const store = await openStore({ url: `file:${path}`, logger: silentLogger });
  try {
    const { invocations, errors, sessions, users, tenants, inputTokens, outputTokens, toolCalls, latencyMsTotal } =
      await store.readStats();
    const history = (await store.loadHistory('default', 'bench-session-7', 20)).map((message) => [
      message.role,
      message.content,
    ]);
    return {
      stats: { invocations, errors, sessions, users, tenants, inputTokens, outputTokens, toolCalls, latencyMsTotal },
      history,
    };
  } finally {
    await store.close();
  }
}

describe('the storage limit writes (bench/storage/turn-writes.ts)', () => {
  it("stores through today's SQL and the lean write exactly what the actor's store stores for the same turns", async () => {
    const viaStore = await migratedFile('store.db');
    const store = await openStore({ url: `file:${viaStore}`, logger: silentLogger });
    for (const group of groups()) await store.saveTurns(group.map((turn) => turn.record));
    await store.close();
    const exact = await migratedFile('exact.db');
    writeStraight(exact, exactWrite);
    const lean = await migratedFile('lean.db');
    writeStraight(lean, leanWrite);

    const expected = await readBack(viaStore);
    expect(expected.stats).toMatchObject({ invocations: TURNS, sessions: 200, users: 50, tenants: 1 });
    expect(expected.history).toHaveLength(4); // turns 7 and 207
    expect(expected.history[0]).toEqual(['user', 'Hello from the bench, turn 7']);
    expect(await readBack(exact)).toEqual(expected);
    expect(await readBack(lean)).toEqual(expected);
  });
});
