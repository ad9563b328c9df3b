import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../log/logger.js';
import { openStore } from './open-store.js';
import { mergeSpilledInvocations, spillInvocations } from './spilled-invocations.js';
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
});
