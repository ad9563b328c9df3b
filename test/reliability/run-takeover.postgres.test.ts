// Two actor processes on one PostgreSQL database, a slow model behind them: a background run
// begins on A, A is killed with SIGKILL mid-answer, and B, sweeping expired leases every quarter
// lease, takes the run over within 1.25 × RUN_LEASE_MS — failing it `runner_lost` (its stream
// ends with an `error` part naming it), or, with RUN_RETRY_READ_ONLY, running it again from its
// stored request under the same id, its parts numbered on after A's.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { checkRuntime, RUNTIMES_UNDER_TEST } from '../contract/runtimes-under-test.js';
import { spawnActor, type SpawnedActor, waitUntilReady, within } from '../contract/spawn-actor.js';
import { TestSchemas } from '../store/postgres-schemas.js';
import { postgresTestUrl } from '../store/postgres-test-database.js';
import { pollRun, readRun, readRunStream, startBackgroundRun } from './support/runs-client.js';
import { type SlowModelServer, startSlowModelServer } from './support/slow-model-server.js';

const LEASE_MS = 2_000;
/** The stated bound: the lease runs out at most one lease after the kill, and a sweep comes every quarter lease. */
const TAKEOVER_BOUND_MS = 1.25 * LEASE_MS;
/** What the test allows on top of the bound: its own polls and the process start of nothing. */
const SLACK_MS = 2_000;
const node = RUNTIMES_UNDER_TEST.find((runtime) => runtime.name === 'node-system')!;
const baseUrl = postgresTestUrl('run takeover over PostgreSQL');

if (baseUrl !== undefined) {
  describe('a run whose actor process is killed (SIGKILL), on PostgreSQL', () => {
    const schemas = new TestSchemas(baseUrl, 'actorkit_takeover');
    const actors: SpawnedActor[] = [];
    let model: SlowModelServer;

    beforeAll(async () => {
      checkRuntime(node);
      model = await startSlowModelServer();
    });
    afterEach(async () => {
      for (const actor of actors.splice(0)) await actor.dispose();
    });
    afterAll(async () => {
      await model?.close();
      await schemas.dropAll();
    });

    /** Replicas A and B on a fresh schema, ready. */
    async function twoReplicas(env: Record<string, string> = {}): Promise<[SpawnedActor, SpawnedActor]> {
      const shared = {
        DATABASE_URL: await schemas.create(),
        LLM_BASE_URL: model.baseUrl,
        LLM_MODEL: 'slow',
        LLM_API_KEY: 'sk-test',
        RUN_LEASE_MS: String(LEASE_MS),
        ...env,
      };
      // One after the other: both would migrate the fresh schema at once.
      const a = await spawnActor(node, { ...shared, INSTANCE_ID: 'replica-a' });
      actors.push(a);
      await waitUntilReady(a);
      const b = await spawnActor(node, { ...shared, INSTANCE_ID: 'replica-b' });
      actors.push(b);
      await waitUntilReady(b);
      return [a, b];
    }

    /** Starts a background run on `a`, waits for its first parts to be stored, then kills `a`; resolves with the run id and the kill time. */
    async function runThenKill(
      a: SpawnedActor,
      b: SpawnedActor,
    ): Promise<{ id: string; killedAt: number; seenSeq: number }> {
      const run = await startBackgroundRun(a.baseUrl, `takeover-${Date.now()}`);
      const seen = await pollRun(b.baseUrl, run.id, (stored) => stored.last_seq >= 3, 5_000, 50);
      expect(seen.state, 'still running on A when A is killed').toBe('running');
      const killedAt = performance.now();
      a.child.kill('SIGKILL');
      await within(a.exited, 5_000, 'A to die');
      return { id: run.id, killedAt, seenSeq: seen.last_seq };
    }

    it('fails `runner_lost` on B within 1.25 × RUN_LEASE_MS, its stream ending with an error part', async () => {
      model.pace = { words: 200, gapMs: 100 };
      const [a, b] = await twoReplicas();
      const { id, killedAt } = await runThenKill(a, b);

      const run = await pollRun(b.baseUrl, id, (stored) => stored.state !== 'running', TAKEOVER_BOUND_MS + SLACK_MS);
      const seconds = (performance.now() - killedAt) / 1000;
      console.log(`[run takeover] runner_lost seen on B ${seconds.toFixed(2)} s after kill -9 (lease ${LEASE_MS} ms)`);
      expect(run.state).toBe('failed');
      expect(run.problem?.code).toBe('runner_lost');
      expect(seconds * 1000).toBeLessThan(TAKEOVER_BOUND_MS + SLACK_MS);

      const parts = await readRunStream(b.baseUrl, id);
      expect(parts.at(-1)?.data).toBe('[DONE]');
      const last = parts.at(-2)!;
      expect(JSON.parse(last.data)).toMatchObject({ type: 'error', errorText: expect.stringContaining('runner_lost') });
      expect(last.seq).toBe(run.last_seq);
      expect(parts.slice(0, -1).map((part) => part.seq)).toEqual(Array.from({ length: run.last_seq }, (_, i) => i + 1));
    });

    it('with RUN_RETRY_READ_ONLY, B runs it again from its request and it completes; parts numbered on, never twice', async () => {
      model.pace = { words: 12, gapMs: 150 };
      const [a, b] = await twoReplicas({ RUN_RETRY_READ_ONLY: 'true' });
      const { id, seenSeq } = await runThenKill(a, b);

      const run = await pollRun(b.baseUrl, id, (stored) => stored.state === 'completed', 15_000);
      expect(run.state, JSON.stringify(run)).toBe('completed');
      expect(run.reply?.message.content).toContain('word12');
      expect(run.last_seq).toBeGreaterThan(seenSeq);

      const parts = await readRunStream(b.baseUrl, id);
      expect(parts.at(-1)?.data).toBe('[DONE]');
      const numbers = parts.slice(0, -1).map((part) => part.seq);
      expect(numbers).toEqual(Array.from({ length: run.last_seq }, (_, i) => i + 1));
      const types = parts.slice(0, -1).map((part) => (JSON.parse(part.data) as { type: string }).type);
      // A's start, its words so far; then B's attempt from its own start to the finish.
      expect(types[0]).toBe('start');
      expect(types.lastIndexOf('start')).toBeGreaterThan(0);
      expect(types.at(-1)).toBe('finish');
      expect((await readRun(b.baseUrl, id)).problem).toBeUndefined();
    });
  });
}
