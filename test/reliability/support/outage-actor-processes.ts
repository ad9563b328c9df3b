import { checkRuntime, RUNTIMES_UNDER_TEST } from '../../contract/runtimes-under-test.js';
import { spawnActor, type SpawnedActor, waitUntilReady } from '../../contract/spawn-actor.js';
import { proxyDatabase, TestSchemas } from '../../store/postgres-schemas.js';
import type { TcpProxy } from '../../support/tcp-proxy.js';

const runtime = RUNTIMES_UNDER_TEST.find((candidate) => candidate.name === 'node-system')!;

/**
 * Real actor processes (the built example on Node) sharing one PostgreSQL schema behind a
 * loopback proxy the test cuts and restores, and one environment: what the tests of a
 * shutdown or a kill during a database outage start, restart and clean up.
 */
export class OutageActorProcesses {
  readonly #schemas: TestSchemas;
  readonly #actors: SpawnedActor[] = [];
  #proxy: TcpProxy | undefined;
  #env: Record<string, string> = {};

  constructor(baseUrl: string) {
    this.#schemas = new TestSchemas(baseUrl);
  }

  /** The proxy in front of the database (after the first `spawn`). */
  get proxy(): TcpProxy {
    if (this.#proxy === undefined) throw new Error('spawn an actor first');
    return this.#proxy;
  }

  /**
   * Starts an actor and waits until it is ready. The first call creates the schema and the
   * proxy and fixes the environment (`env` plus `DATABASE_URL` and `DATABASE_TIMEOUT_MS=1000`);
   * later calls start another process with the same.
   */
  async spawn(env: Record<string, string> = {}): Promise<SpawnedActor> {
    checkRuntime(runtime);
    if (this.#proxy === undefined) {
      const proxied = await proxyDatabase(await this.#schemas.create());
      this.#proxy = proxied.proxy;
      this.#env = { DATABASE_TIMEOUT_MS: '1000', ...env, DATABASE_URL: proxied.url };
    }
    const actor = await spawnActor(runtime, this.#env);
    this.#actors.push(actor);
    await waitUntilReady(actor);
    return actor;
  }

  /** Kills what still runs, closes the proxy and drops the schema. */
  async close(): Promise<void> {
    for (const actor of this.#actors) await actor.dispose();
    await this.#proxy?.close();
    await this.#schemas.dropAll();
  }
}

/** Sends turn `turn` of a load (users and sessions cycling) to the actor; resolves with its status and metadata. */
export async function invokeTurn(
  actor: SpawnedActor,
  turn: number,
  spread: { readonly users: number; readonly sessions: number },
): Promise<{ readonly status: number; readonly metadata: Record<string, unknown> | undefined }> {
  const response = await fetch(`${actor.baseUrl}/agent/invoke`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      user_identifier: `u-${turn % spread.users}`,
      session_id: `s-${turn % spread.sessions}`,
      message: `turn ${turn}`,
    }),
    signal: AbortSignal.timeout(10_000),
  });
  const body = (await response.json()) as { metadata?: Record<string, unknown> };
  return { status: response.status, metadata: body.metadata };
}
