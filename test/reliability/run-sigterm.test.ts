// SIGTERM with a run in progress, on real actor processes and a slow model: `/ready` stays 200
// while the run goes on before the signal; the drain waits up to SHUTDOWN_GRACE_MS for it. A run
// that fits ends `completed`; one that does not ends `failed` `runner_stopped`, its parts so far
// kept — both read after a restart on the same SQLite file.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { checkRuntime, RUNTIMES_UNDER_TEST } from '../contract/runtimes-under-test.js';
import { spawnActor, type SpawnedActor, waitUntilReady, within } from '../contract/spawn-actor.js';
import { pollRun, readRun, readRunStream, startBackgroundRun } from './support/runs-client.js';
import { type SlowModelServer, startSlowModelServer } from './support/slow-model-server.js';

const node = RUNTIMES_UNDER_TEST.find((runtime) => runtime.name === 'node-system')!;
const GRACE_MS = 3_000;

describe('SIGTERM with a run in progress (SQLite)', () => {
  const actors: SpawnedActor[] = [];
  let model: SlowModelServer;
  let dataDir: string;

  beforeAll(async () => {
    checkRuntime(node);
    model = await startSlowModelServer();
  });
  afterEach(async () => {
    for (const actor of actors.splice(0)) await actor.dispose();
    rmSync(dataDir, { recursive: true, force: true });
  });
  afterAll(() => model?.close());

  async function start(): Promise<SpawnedActor> {
    const actor = await spawnActor(node, {
      DATABASE_URL: `file:${join(dataDir, 'actor.db')}`,
      LLM_BASE_URL: model.baseUrl,
      LLM_MODEL: 'slow',
      LLM_API_KEY: 'sk-test',
      SHUTDOWN_GRACE_MS: String(GRACE_MS),
    });
    actors.push(actor);
    await waitUntilReady(actor);
    return actor;
  }

  /** Starts a background run, checks `/ready` while it goes on, sends SIGTERM and waits for the exit. */
  async function runThenTerminate(session: string): Promise<{ id: string; seenSeq: number; exitMs: number }> {
    dataDir = mkdtempSync(join(tmpdir(), 'actorkit-run-sigterm-'));
    const actor = await start();
    const { id } = await startBackgroundRun(actor.baseUrl, session);
    const seen = await pollRun(actor.baseUrl, id, (run) => run.last_seq >= 3, 5_000, 50);
    expect(seen.state).toBe('running');
    const ready = await fetch(`${actor.baseUrl}/ready`);
    expect(ready.status, await ready.text()).toBe(200);
    const health = (await (await fetch(`${actor.baseUrl}/health`)).json()) as Record<string, unknown>;
    expect(JSON.stringify(health)).toContain('"runs_in_progress":1');

    const signalled = performance.now();
    actor.child.kill('SIGTERM');
    const exit = await within(actor.exited, GRACE_MS + 10_000, 'the exit after SIGTERM');
    expect(exit, actor.output()).toEqual({ code: 0, signal: null });
    return { id, seenSeq: seen.last_seq, exitMs: performance.now() - signalled };
  }

  it('a run that fits in SHUTDOWN_GRACE_MS finishes before the exit: completed after a restart', async () => {
    model.pace = { words: 10, gapMs: 120 };
    const { id, exitMs } = await runThenTerminate('fits');
    expect(exitMs).toBeLessThan(GRACE_MS);

    const restarted = await start();
    const run = await readRun(restarted.baseUrl, id);
    expect(run.state, JSON.stringify(run)).toBe('completed');
    expect(run.reply?.message.content).toBe('word1 word2 word3 word4 word5 word6 word7 word8 word9 word10');
    const parts = await readRunStream(restarted.baseUrl, id);
    expect(parts.slice(0, -1).map((part) => part.seq)).toEqual(Array.from({ length: run.last_seq }, (_, i) => i + 1));
    expect(JSON.parse(parts.at(-2)!.data)).toMatchObject({ type: 'finish' });
    expect(parts.at(-1)?.data).toBe('[DONE]');
  });

  it('a run that does not fit is failed `runner_stopped`, its parts so far kept, after a restart', async () => {
    model.pace = { words: 200, gapMs: 100 };
    const { id, seenSeq, exitMs } = await runThenTerminate('too-long');
    expect(exitMs).toBeGreaterThanOrEqual(GRACE_MS - 100);

    const restarted = await start();
    const run = await readRun(restarted.baseUrl, id);
    expect(run.state, JSON.stringify(run)).toBe('failed');
    expect(run.problem?.code).toBe('runner_stopped');
    // The words that came during the grace period were kept too.
    expect(run.last_seq).toBeGreaterThan(seenSeq + 10);
    const parts = await readRunStream(restarted.baseUrl, id);
    expect(parts.slice(0, -1).map((part) => part.seq)).toEqual(Array.from({ length: run.last_seq }, (_, i) => i + 1));
    const types = parts.slice(0, -1).map((part) => (JSON.parse(part.data) as { type: string }).type);
    expect(types[0]).toBe('start');
    expect(types.filter((type) => type === 'text-delta').length).toBeGreaterThan(10);
    expect(types.at(-1)).toBe('abort');
    expect(parts.at(-1)?.data).toBe('[DONE]');
    console.log(
      `[run sigterm] kept ${run.last_seq} parts, ending ${types.at(-1)}; exit ${(exitMs / 1000).toFixed(2)} s after SIGTERM`,
    );
  });
});
