import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { ServeHandle } from '../../src/adapter/serve-options.js';
import { TestSchemas } from '../store/postgres-schemas.js';
import { postgresTestUrl } from '../store/postgres-test-database.js';
import { type ReliabilityActor, serveReliabilityActor, unexpectedErrors } from './support/reliability-actor.js';

// Two replicas on one database, each served over a real socket, write different settings at
// the same moment: every accepted field is kept (writes merge per field against what is
// stored, under the database's lock), and both replicas serve the same, merged settings
// within SETTINGS_REFRESH_MS, without a restart.

const ROUNDS = 12;
const REFRESH_MS = 200;

type Served = ReliabilityActor & { readonly server: ServeHandle };

const put = async (replica: Served, body: Record<string, unknown>) => {
  const response = await fetch(`${replica.server.url}/settings`, { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  return { status: response.status, body: (await response.json()) as { settings?: Record<string, unknown> } };
};

/** Runs the rounds: in each, replica one sets `max_items` and replica two `greeting`, at once. */
async function concurrentWrites(one: Served, two: Served): Promise<void> {
  for (let round = 1; round <= ROUNDS; round += 1) {
    const [first, second] = await Promise.all([put(one, { max_items: round }), put(two, { greeting: `round-${round}` })]);
    expect([first.status, second.status]).toEqual([200, 200]);
    // Whichever wrote second saw the other's field: its answer shows both.
    expect([first.body.settings, second.body.settings]).toContainEqual(expect.objectContaining({ max_items: round, greeting: `round-${round}` }));
    const expected = { max_items: round, greeting: `round-${round}` };
    await vi.waitFor(
      () => {
        expect(one.app.actor.context.settings.values).toMatchObject(expected);
        expect(two.app.actor.context.settings.values).toMatchObject(expected);
      },
      { timeout: 5_000, interval: 20 },
    );
    expect(await one.app.actor.context.store.loadSettingsOverrides()).toEqual(expected);
  }
}

describe('two replicas writing settings at once', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  const serveTwo = async (env: Record<string, string>): Promise<[Served, Served]> => {
    const replicas: Served[] = [];
    for (let index = 0; index < 2; index += 1) {
      const replica = await serveReliabilityActor({ ...env, SETTINGS_REFRESH_MS: String(REFRESH_MS) });
      cleanups.push(() => replica.server.close());
      replicas.push(replica);
    }
    return replicas as [Served, Served];
  };

  it('on one SQLite file: merged per field, and both replicas serve the merge', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'actorkit-settings-replicas-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const [one, two] = await serveTwo({ DATABASE_URL: `file:${join(dataDir, 'actor.db')}` });
    await concurrentWrites(one, two);
    expect([...unexpectedErrors(one.logs), ...unexpectedErrors(two.logs)]).toEqual([]);
  }, 60_000);

  const baseUrl = postgresTestUrl('settings written by two replicas');
  if (baseUrl !== undefined) {
    it('on one PostgreSQL: merged per field, and both replicas serve the merge', async () => {
      const schemas = new TestSchemas(baseUrl);
      cleanups.push(() => schemas.dropAll());
      const [one, two] = await serveTwo({ DATABASE_URL: await schemas.create() });
      await concurrentWrites(one, two);
      expect([...unexpectedErrors(one.logs), ...unexpectedErrors(two.logs)]).toEqual([]);
    }, 60_000);
  }
});
