import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { getJson, invokeLoad, serveTestActor, type ServedActor } from './invoke-load.js';
import { TestSchemas } from './postgres-schemas.js';
import { postgresTestUrl } from './postgres-test-database.js';

const INVOKES = 2_000;
const CONCURRENCY = 50;

const running: ServedActor[] = [];
afterAll(async () => {
  await Promise.all(running.splice(0).map((actor) => actor.handle.close()));
});

async function start(env: Record<string, string>): Promise<ServedActor> {
  const actor = await serveTestActor(env);
  running.push(actor);
  return actor;
}

async function stop(actor: ServedActor): Promise<void> {
  running.splice(running.indexOf(actor), 1);
  await actor.handle.close();
}

/** Runs the load on one fresh actor, checks `/stats`, restarts it and checks again. */
async function loadRestartAndCount(env: Record<string, string>): Promise<void> {
  const first = await start(env);
  const load = await invokeLoad([first.handle.url], INVOKES, CONCURRENCY);
  expect(load.ok).toBe(INVOKES);
  expect(load.noReply).toBe(0);
  const stats = await getJson(first.handle.url, '/stats');
  expect(stats.body).toMatchObject({
    scope: 'instance',
    invocations: load.ok,
    errors: 0,
    tenants: 3,
    sessions: 3 * 41,
    users: 17,
  });
  await stop(first);

  const second = await start(env);
  expect((await getJson(second.handle.url, '/stats')).body).toMatchObject({ invocations: load.ok, tenants: 3 });
  expect((await getJson(second.handle.url, '/stats/tenant-1')).body).toMatchObject({
    scope: 'tenant',
    invocations: Math.round(INVOKES / 3),
  });
  await stop(second);
}

describe(`${INVOKES} invokes at concurrency ${CONCURRENCY} through a listening server`, () => {
  it('counts every 200 exactly on SQLite, and the same after a restart', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'actorkit-load-'));
    try {
      await loadRestartAndCount({ DATA_DIR: dataDir });
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  const baseUrl = postgresTestUrl('invoke load on PostgreSQL');
  if (baseUrl !== undefined) {
    const schemas = new TestSchemas(baseUrl);
    afterAll(() => schemas.dropAll());

    it('counts every 200 exactly on PostgreSQL, and the same after a restart', async () => {
      await loadRestartAndCount({ DATABASE_URL: await schemas.create() });
    });

    it('reports one exact total from two instances on one PostgreSQL, invoked alternately', async () => {
      const env = { DATABASE_URL: await schemas.create() };
      const [one, two] = await Promise.all([start(env), start(env)]);
      const load = await invokeLoad([one.handle.url, two.handle.url], INVOKES, CONCURRENCY);
      expect(load.ok).toBe(INVOKES);
      const [fromOne, fromTwo] = await Promise.all([
        getJson(one.handle.url, '/stats'),
        getJson(two.handle.url, '/stats'),
      ]);
      expect(fromOne.body).toMatchObject({ invocations: INVOKES, tenants: 3, sessions: 3 * 41, users: 17 });
      expect(fromTwo.body).toMatchObject({ invocations: INVOKES, tenants: 3, sessions: 3 * 41, users: 17 });
      expect(fromOne.body.instance_id).not.toBe(fromTwo.body.instance_id);
    });
  }
});
