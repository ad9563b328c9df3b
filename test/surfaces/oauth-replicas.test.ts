// OAuth states in the actor's own database: a flow started on one replica completes on another
// (one PostgreSQL schema, two apps), each state is spent once across replicas, and a pending
// flow survives a restart on the same SQLite file. Against oauth2-mock-server on loopback.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ActorEnvironment } from '../../src/environment/runtime-config.js';
import { createActorApp, type ActorApp } from '../../src/app/create-actor-app.js';
import { createLogger, createMemorySink } from '../../src/log/logger.js';
import { createOAuthFlow } from '../../src/oauth/index.js';
import { testActorDefinition } from '../../src/testing/create-test-actor.js';
import { queryTestDatabase, TestSchemas } from '../store/postgres-schemas.js';
import { postgresTestUrl } from '../store/postgres-test-database.js';
import { serveOnLoopback } from './loopback.js';
import { location, startMockOAuthProvider, type MockOAuthProvider } from './oauth-mock-provider.js';

/** The callback URL registered at the provider: the load balancer in front of the replicas. */
const REDIRECT_URI = 'https://actor.example/oauth/callback';

interface Replica {
  readonly app: ActorApp;
  readonly url: string;
  close(): Promise<void>;
}

const sink = createMemorySink();
const running: Replica[] = [];
let mock: MockOAuthProvider;

beforeAll(async () => {
  mock = await startMockOAuthProvider();
});
afterAll(() => mock?.stop());
beforeEach(() => {
  mock.grants.length = 0;
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((replica) => replica.close()));
});

/** Serves one replica with its own OAuth flow and no `stateStore`, started (migrated) before it answers. */
async function startReplica(env: ActorEnvironment): Promise<Replica> {
  const oauth = createOAuthFlow({ providers: [mock.config()], redirectUri: REDIRECT_URI });
  const app = createActorApp({ definition: testActorDefinition, env, logger: createLogger({ sink }), oauth });
  const handle = await serveOnLoopback(app);
  await app.actor.start();
  const replica = { app, url: handle.url, close: () => handle.close() };
  running.push(replica);
  return replica;
}

const get = (url: string) => fetch(url, { redirect: 'manual' });

/** Authorizes on `replica` and follows the provider; resolves with the callback path and query the load balancer forwards. */
async function startFlow(replica: Replica, query: string): Promise<string> {
  const start = await get(`${replica.url}/oauth/authorize?${query}`);
  expect(start.status, await start.clone().text()).toBe(302);
  const atProvider = await get(location(start));
  expect(atProvider.status).toBe(302);
  const callback = new URL(location(atProvider));
  expect(callback.origin + callback.pathname).toBe(REDIRECT_URI);
  expect(callback.searchParams.get('state')).toBe(new URL(location(start)).searchParams.get('state'));
  return callback.pathname + callback.search;
}

async function expectInvalidState(response: Response): Promise<void> {
  expect(response.status).toBe(400);
  expect((await response.json()).code).toBe('invalid_state');
}

const baseUrl = postgresTestUrl('OAuth states across replicas');

if (baseUrl !== undefined) {
  describe('OAuth states on one PostgreSQL schema shared by two replicas', () => {
    const schemas = new TestSchemas(baseUrl, 'actorkit_oauth');
    afterAll(() => schemas.dropAll());

    it('completes on replica B a flow authorized on replica A, and refuses the state on A afterwards', async () => {
      const url = await schemas.create();
      const [a, b] = await Promise.all([startReplica({ DATABASE_URL: url }), startReplica({ DATABASE_URL: url })]);
      const callback = await startFlow(a, 'provider=mock&tenant_id=acme&return_to=%2Fpanel%2Fstats');
      expect(await queryTestDatabase(url, 'select state from actorkit_oauth_states')).toHaveLength(1);

      const done = await get(b.url + callback);
      expect(done.status, await done.clone().text()).toBe(302);
      expect(location(done)).toBe('/panel/stats');
      expect(mock.grants).toEqual(['authorization_code']);
      const token = await a.app.actor.context.store.loadOAuthToken('acme', 'mock');
      expect(token?.accessToken).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
      expect(await queryTestDatabase(url, 'select state from actorkit_oauth_states')).toEqual([]);

      await expectInvalidState(await get(a.url + callback));
      await expectInvalidState(await get(b.url + callback));
      expect(mock.grants).toEqual(['authorization_code']);
    });

    it('spends a state once when its callback reaches both replicas at the same moment', async () => {
      const url = await schemas.create();
      const [a, b] = await Promise.all([startReplica({ DATABASE_URL: url }), startReplica({ DATABASE_URL: url })]);
      for (let round = 0; round < 5; round += 1) {
        const callback = await startFlow(round % 2 === 0 ? a : b, `provider=mock&tenant_id=race-${round}`);
        const answers = await Promise.all([get(a.url + callback), get(b.url + callback)]);
        expect(answers.map((answer) => answer.status).sort(), `round ${round}`).toEqual([200, 400]);
        await Promise.all(answers.map((answer) => answer.body?.cancel()));
      }
      expect(mock.grants).toEqual(Array.from({ length: 5 }, () => 'authorization_code'));
    });
  });
}

describe('OAuth states in the SQLite file', () => {
  const dirs: string[] = [];
  afterAll(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

  it('keeps a pending flow across a restart, and spends it once', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'actorkit-oauth-'));
    dirs.push(dataDir);
    const before = await startReplica({ DATA_DIR: dataDir });
    const callback = await startFlow(before, 'provider=mock&tenant_id=restart&return_to=%2Fafter');
    await running.splice(running.indexOf(before), 1)[0]!.close();

    const after = await startReplica({ DATA_DIR: dataDir });
    const done = await get(after.url + callback);
    expect(done.status, await done.clone().text()).toBe(302);
    expect(location(done)).toBe('/after');
    expect(await after.app.actor.context.store.loadOAuthToken('restart', 'mock')).not.toBeNull();
    await expectInvalidState(await get(after.url + callback));
    expect(mock.grants).toEqual(['authorization_code']);
  });
});
