import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { ServeHandle } from '../../src/adapter/serve-options.js';
import { TestSchemas } from '../store/postgres-schemas.js';
import { postgresTestUrl } from '../store/postgres-test-database.js';
import { type ReliabilityActor, serveReliabilityActor, unexpectedErrors } from './support/reliability-actor.js';

// Two replicas on one database, each served over a real socket, write different settings at
// the same moment: every accepted field is kept (writes merge per field against what is
// stored, under the database's lock), and both replicas serve the same, merged settings
// within SETTINGS_REFRESH_MS, without a restart. SQLite: two connections of one process on one
// file (docs/state.md: one process per file); PostgreSQL: one schema.

const ROUNDS = 12;
const REFRESH_MS = 200;

type Served = ReliabilityActor & { readonly server: ServeHandle };

const put = async (replica: Served, body: Record<string, unknown>) => {
  const response = await fetch(`${replica.server.url}/settings`, {
    method: 'PUT',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as { settings?: Record<string, unknown> } };
};

/** Runs the rounds: in each, replica one sets `max_items` and replica two `greeting`, at once. */
async function concurrentWrites(one: Served, two: Served): Promise<void> {
  for (let round = 1; round <= ROUNDS; round += 1) {
    const [first, second] = await Promise.all([
      put(one, { max_items: round }),
      put(two, { greeting: `round-${round}` }),
    ]);
    expect([first.status, second.status]).toEqual([200, 200]);
    // Whichever wrote second saw the other's field: its answer shows both.
    expect([first.body.settings, second.body.settings]).toContainEqual(
      expect.objectContaining({ max_items: round, greeting: `round-${round}` }),
    );
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

type Body = Record<string, unknown>;

/** One write: some of the two fields, or a body refused as a whole (one bad field). */
const write: fc.Arbitrary<{ readonly body: Body; readonly valid: boolean }> = fc
  .record({
    greeting: fc.option(
      fc.string({ minLength: 1, maxLength: 6 }).map((text) => `g-${text}`),
      { nil: undefined },
    ),
    max_items: fc.option(fc.integer({ min: 1, max: 100 }), { nil: undefined }),
    bad: fc.boolean(),
  })
  .map(({ greeting, max_items: maxItems, bad }) => {
    const body: Body = {
      ...(greeting === undefined ? {} : { greeting }),
      ...(maxItems === undefined ? {} : { max_items: maxItems }),
    };
    return bad ? { body: { ...body, max_items: 0 }, valid: false } : { body, valid: true };
  });

/**
 * Fuzz shape: rounds of writes sent at once to both replicas (one to three, any fields, some
 * refused). After each round every field holds the value of one accepted write that set it (or
 * its value before, when none did), and both replicas serve what is saved.
 */
async function concurrentWritesProperty(one: Served, two: Served): Promise<void> {
  await fc.assert(
    fc.asyncProperty(fc.array(write, { minLength: 2, maxLength: 3 }), async (writes) => {
      const before = await one.app.actor.context.store.loadSettingsOverrides();
      const answers = await Promise.all(writes.map((current, index) => put(index % 2 === 0 ? one : two, current.body)));
      writes.forEach((current, index) =>
        expect(answers[index]!.status, JSON.stringify(current.body)).toBe(current.valid ? 200 : 422),
      );
      const saved = await one.app.actor.context.store.loadSettingsOverrides();
      for (const field of ['greeting', 'max_items']) {
        const written = writes
          .filter((current) => current.valid && Object.hasOwn(current.body, field))
          .map((current) => current.body[field]);
        if (written.length === 0) expect(saved[field]).toEqual(before[field]);
        else expect(written).toContainEqual(saved[field]);
      }
      await vi.waitFor(
        () => {
          expect(one.app.actor.context.settings.values).toMatchObject(saved);
          expect(two.app.actor.context.settings.values).toMatchObject(saved);
        },
        { timeout: 5_000, interval: 20 },
      );
    }),
    { numRuns: 15 },
  );
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
    await concurrentWritesProperty(one, two);
    expect([...unexpectedErrors(one.logs), ...unexpectedErrors(two.logs)]).toEqual([]);
  }, 60_000);

  const baseUrl = postgresTestUrl('settings written by two replicas');
  if (baseUrl !== undefined) {
    it('on one PostgreSQL: merged per field, and both replicas serve the merge', async () => {
      const schemas = new TestSchemas(baseUrl);
      cleanups.push(() => schemas.dropAll());
      const [one, two] = await serveTwo({ DATABASE_URL: await schemas.create() });
      await concurrentWrites(one, two);
      await concurrentWritesProperty(one, two);
      expect([...unexpectedErrors(one.logs), ...unexpectedErrors(two.logs)]).toEqual([]);
    }, 60_000);
  }
});
