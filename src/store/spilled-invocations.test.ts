import {
  appendFileSync,
  copyFileSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../log/logger.js';
import { openStore } from './open-store.js';
import { InvocationJournal, mergeSpilledInvocations, spillInvocations } from './spilled-invocations.js';
import type { TurnToSave, Store } from './store.js';

const DATABASE = 'file:/data/actor.db';

const record = (id: string): TurnToSave => ({
  id,
  tenantId: 'acme',
  userIdentifier: 'u',
  sessionId: 's',
  outcome: 'success',
  inputTokens: 1,
  outputTokens: 2,
  toolCalls: 0,
  latencyMs: 3,
  finishedAt: '2026-11-24T00:00:00.000Z',
});

describe('spilled invocation records', () => {
  const folders: string[] = [];
  const stores: Store[] = [];
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
    for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
  });
  const setUp = async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'actorkit-spill-unit-'));
    folders.push(dataDir);
    const store = await openStore({ url: 'memory://', logger: silentLogger });
    stores.push(store);
    await store.migrate();
    return { dataDir, store };
  };

  it('are written privately, merged once (ids count once even when a file is merged again) and removed', async () => {
    const { dataDir, store } = await setUp();
    const path = await spillInvocations(join(dataDir, 'missing-folder'), DATABASE, [record('a'), record('b')]);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const copy = join(dataDir, 'missing-folder', 'pending-invocations-copy.json');
    writeFileSync(
      copy,
      JSON.stringify({ version: 1, database: DATABASE, records: [record('a'), record('b'), record('c')] }),
    );
    expect(await mergeSpilledInvocations(join(dataDir, 'missing-folder'), DATABASE, store)).toEqual({
      records: 5,
      files: 2,
      unreadable: [],
      foreign: [],
    });
    expect(await store.readStats()).toMatchObject({ invocations: 3 });
    expect(readdirSync(join(dataDir, 'missing-folder'))).toEqual([]);
  });

  it('leaves a file it cannot read or whose records the store refuses, renamed, and counts nothing from it', async () => {
    const { dataDir, store } = await setUp();
    writeFileSync(join(dataDir, 'pending-invocations-broken.json'), '{"version":1,"records":[');
    writeFileSync(
      join(dataDir, 'pending-invocations-invalid.json'),
      JSON.stringify({ version: 1, database: DATABASE, records: [{ ...record('x'), outcome: 'maybe' }] }),
    );
    const merged = await mergeSpilledInvocations(dataDir, DATABASE, store);
    expect(merged).toMatchObject({ records: 0, files: 0 });
    expect(readdirSync(dataDir).sort()).toEqual([
      'pending-invocations-broken.json.unreadable',
      'pending-invocations-invalid.json.unreadable',
    ]);
    expect(await store.readStats()).toMatchObject({ invocations: 0 });
  });

  it('finds nothing in a DATA_DIR that does not exist', async () => {
    const { dataDir, store } = await setUp();
    expect(await mergeSpilledInvocations(join(dataDir, 'nowhere'), DATABASE, store)).toEqual({
      records: 0,
      files: 0,
      unreadable: [],
      foreign: [],
    });
  });

  it('leaves the spill of another database where it is, counting nothing from it', async () => {
    const { dataDir, store } = await setUp();
    const path = await spillInvocations(dataDir, 'postgres://elsewhere/db', [record('a')]);
    expect(await mergeSpilledInvocations(dataDir, DATABASE, store)).toEqual({
      records: 0,
      files: 0,
      unreadable: [],
      foreign: [path],
    });
    expect(readdirSync(dataDir)).toHaveLength(1);
    expect(await store.readStats()).toMatchObject({ invocations: 0 });
  });

  it('journals turns line by line; merges only journals whose process is gone, without a line cut short', async () => {
    const { dataDir, store } = await setUp();
    const journal = new InvocationJournal(dataDir, DATABASE);
    await Promise.all([journal.append(record('a')), journal.append(record('b'))]);
    const own = journal.path!;
    expect(statSync(own).mode & 0o777).toBe(0o600);
    expect(readFileSync(own, 'utf8').split('\n')).toHaveLength(4); // header, two records, ''
    const named = (pid: number) =>
      join(dataDir, `pending-invocations-${hostname()}~${pid}~00000000-0000-4000-8000-00000000000${pid % 10}.jsonl`);
    const dead = named(2 ** 22 + 1); // above Linux's largest process id: no such process
    const alive = named(process.ppid);
    copyFileSync(own, dead);
    appendFileSync(dead, JSON.stringify(record('cut')).slice(0, 20)); // killed in the middle of a write
    copyFileSync(own, alive);
    // Neither the journal this process appends to nor one of a live process is taken.
    expect(await mergeSpilledInvocations(dataDir, DATABASE, store, { appendingTo: own })).toMatchObject({
      records: 2,
      files: 1,
      unreadable: [],
    });
    expect(readdirSync(dataDir).sort()).toEqual([own, alive].map((path) => path.slice(dataDir.length + 1)).sort());
    expect(await store.readStats()).toMatchObject({ invocations: 2 });
    // Discard removes this process's own journal, never another's.
    await journal.discard();
    expect(readdirSync(dataDir)).toEqual([alive.slice(dataDir.length + 1)]);
  });

  it('answers an append made right after the one before was answered (one caller after another)', async () => {
    const { dataDir } = await setUp();
    const journal = new InvocationJournal(dataDir, DATABASE);
    for (const id of ['a', 'b', 'c']) await journal.append(record(id));
    expect(readFileSync(journal.path!, 'utf8').trim().split('\n')).toHaveLength(4);
    await journal.discard();
  });

  it('removes a journal whose writer died before its header was on disk', async () => {
    const { dataDir, store } = await setUp();
    writeFileSync(join(dataDir, `pending-invocations-${hostname()}~${2 ** 22 + 1}~x.jsonl`), '{"vers');
    expect(await mergeSpilledInvocations(dataDir, DATABASE, store)).toMatchObject({ records: 0, unreadable: [] });
    expect(readdirSync(dataDir)).toEqual([]);
  });
});
