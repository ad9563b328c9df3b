import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { silentLogger } from '../../src/log/logger.js';
import { openStore } from '../../src/store/open-store.js';
import { injectFaults } from './faulty-store.js';
import { getJson, invokeLoad, serveTestActor, type ServedActor } from './invoke-load.js';
import { proxyDatabase, TestSchemas } from './postgres-schemas.js';
import { postgresTestUrl } from './postgres-test-database.js';
import type { TcpProxy } from '../support/tcp-proxy.js';

const INVOKES = 1_000;
const CONCURRENCY = 50;

const root = await mkdtemp(join(tmpdir(), 'actorkit-outage-'));
const running: ServedActor[] = [];
const proxies: TcpProxy[] = [];
afterAll(async () => {
  await Promise.all(running.splice(0).map((actor) => actor.handle.close()));
  await Promise.all(proxies.map((proxy) => proxy.close()));
  await rm(root, { recursive: true, force: true });
});

async function start(env: Record<string, string>, store?: Parameters<typeof serveTestActor>[1]): Promise<ServedActor> {
  const actor = await serveTestActor(env, store);
  running.push(actor);
  return actor;
}

async function stop(actor: ServedActor): Promise<void> {
  running.splice(running.indexOf(actor), 1);
  await actor.handle.close();
}

/**
 * Runs the load; the database goes away at the 300th request and returns at the 700th. At the
 * 600th, `/health` must say degraded (200). Returns the load result and the health seen.
 */
async function loadThroughOutage(actor: ServedActor, goAway: () => void, comeBack: () => void) {
  let health: Awaited<ReturnType<typeof getJson>> | undefined;
  const load = await invokeLoad([actor.handle.url], INVOKES, CONCURRENCY, async (sent) => {
    if (sent === 300) goAway();
    if (sent === 600) health = await getJson(actor.handle.url, '/health');
    if (sent === 700) comeBack();
  });
  return { load, health };
}

describe('invokes while the database goes away and comes back', () => {
  it('SQLite with an injected fault: no 5xx, degraded health, then the exact total', async () => {
    const dataDir = join(root, 'sqlite');
    const sqlite = await openStore({ dataDir, logger: silentLogger });
    const faulty = injectFaults(sqlite);
    const actor = await start({}, faulty.store);
    const { load, health } = await loadThroughOutage(
      actor,
      () => (faulty.mode = 'fail'),
      () => (faulty.mode = 'ok'),
    );
    expect([...load.statuses.keys()]).toEqual([200]);
    expect(load.ok).toBe(INVOKES);
    expect(health?.status).toBe(200);
    expect(health?.body).toMatchObject({ status: 'degraded', checks: { database: { status: 'warn' } } });
    await vi.waitFor(() => expect(actor.app.actor.context.stats.pending).toBe(0), { timeout: 10_000 });
    expect((await getJson(actor.handle.url, '/stats')).body).toMatchObject({ invocations: INVOKES });
    await stop(actor);

    const reopened = await start({ DATA_DIR: dataDir });
    expect((await getJson(reopened.handle.url, '/stats')).body).toMatchObject({ invocations: INVOKES });
    await stop(reopened);
  });

  it('SQLite shut down during load (as on SIGTERM): every 200 is counted after the restart', async () => {
    const env = { DATA_DIR: join(root, 'shutdown') };
    const actor = await start(env);
    let closing: Promise<void> | undefined;
    const load = await invokeLoad([actor.handle.url], INVOKES, CONCURRENCY, (sent) => {
      if (sent === 400) closing = stop(actor);
    });
    await closing;
    expect(load.ok).toBeGreaterThanOrEqual(400 - CONCURRENCY);
    expect([...load.statuses.keys()].filter((status) => status !== 200 && status !== 503)).toEqual([]);

    const restarted = await start(env);
    expect((await getJson(restarted.handle.url, '/stats')).body).toMatchObject({ invocations: load.ok });
  });

  const baseUrl = postgresTestUrl('invoke outage on PostgreSQL');
  if (baseUrl !== undefined) {
    const schemas = new TestSchemas(baseUrl);
    afterAll(() => schemas.dropAll());

    it('PostgreSQL behind a proxy that is cut: no 5xx, degraded health, then the exact total', async () => {
      const url = await schemas.create();
      const { proxy, url: proxied } = await proxyDatabase(url);
      proxies.push(proxy);
      const actor = await start({ DATABASE_URL: proxied });
      const { load, health } = await loadThroughOutage(
        actor,
        () => proxy.cut(),
        () => proxy.restore(),
      );
      expect([...load.statuses.keys()]).toEqual([200]);
      expect(health?.body).toMatchObject({ status: 'degraded', checks: { database: { status: 'warn' } } });
      await stop(actor);

      const direct = await openStore({ url, logger: silentLogger });
      try {
        expect(await direct.readStats()).toMatchObject({ invocations: INVOKES, tenants: 3 });
      } finally {
        await direct.close();
      }
    });
  }
});
