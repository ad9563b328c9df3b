// One actor process owns its SQLite file: a run in progress when the process is killed with
// SIGKILL is taken over by the next process on the same DATA_DIR as soon as it starts — failed
// `runner_lost`, or, with RUN_RETRY_READ_ONLY and no side-effect tool seen, run again from its
// stored request. A JSON invoke's tool calls are not seen, so its run is never retried.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { checkRuntime, RUNTIMES_UNDER_TEST } from '../contract/runtimes-under-test.js';
import { spawnActor, type SpawnedActor, waitUntilReady, within } from '../contract/spawn-actor.js';
import { parseSse, pollRun, readRun, readRunStream, startBackgroundRun } from './support/runs-client.js';
import { type SlowModelServer, startSlowModelServer } from './support/slow-model-server.js';

const node = RUNTIMES_UNDER_TEST.find((runtime) => runtime.name === 'node-system')!;

describe('a run whose actor process is killed (SIGKILL), on SQLite', () => {
  const actors: SpawnedActor[] = [];
  let model: SlowModelServer;
  let dataDir: string;

  beforeAll(async () => {
    checkRuntime(node);
    model = await startSlowModelServer({ words: 200, gapMs: 100 });
  });
  afterEach(async () => {
    for (const actor of actors.splice(0)) await actor.dispose();
    rmSync(dataDir, { recursive: true, force: true });
  });
  afterAll(() => model?.close());

  async function start(env: Record<string, string> = {}): Promise<SpawnedActor> {
    const actor = await spawnActor(node, {
      DATABASE_URL: `file:${join(dataDir, 'actor.db')}`,
      LLM_BASE_URL: model.baseUrl,
      LLM_MODEL: 'slow',
      LLM_API_KEY: 'sk-test',
      ...env,
    });
    actors.push(actor);
    await waitUntilReady(actor);
    return actor;
  }

  async function kill(actor: SpawnedActor): Promise<void> {
    actor.child.kill('SIGKILL');
    await within(actor.exited, 5_000, 'the actor to die');
  }

  it('is failed `runner_lost` right after the next process starts on the same file', async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'actorkit-takeover-'));
    model.pace = { words: 200, gapMs: 100 };
    const first = await start();
    const { id } = await startBackgroundRun(first.baseUrl, 'sqlite-killed');
    const seen = await pollRun(first.baseUrl, id, (run) => run.last_seq >= 3, 5_000, 50);
    expect(seen.state).toBe('running');
    await kill(first);

    const second = await start();
    const run = await pollRun(second.baseUrl, id, (stored) => stored.state !== 'running', 1_000, 50);
    expect(run.state).toBe('failed');
    expect(run.problem?.code).toBe('runner_lost');
    const parts = await readRunStream(second.baseUrl, id);
    expect(parts.at(-1)?.data).toBe('[DONE]');
    expect(JSON.parse(parts.at(-2)!.data)).toMatchObject({
      type: 'error',
      errorText: expect.stringContaining('runner_lost'),
    });
    expect(parts.slice(0, -1).map((part) => part.seq)).toEqual(Array.from({ length: run.last_seq }, (_, i) => i + 1));
  });

  it('with RUN_RETRY_READ_ONLY, a background run (no tool, or read-only ones) is run again on restart and completes', async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'actorkit-takeover-'));
    model.pace = { words: 200, gapMs: 100 };
    const first = await start({ RUN_RETRY_READ_ONLY: 'true' });
    const { id } = await startBackgroundRun(first.baseUrl, 'sqlite-retried');
    const seen = await pollRun(first.baseUrl, id, (run) => run.last_seq >= 3, 5_000, 50);
    await kill(first);

    model.pace = { words: 8, gapMs: 50 };
    const second = await start({ RUN_RETRY_READ_ONLY: 'true' });
    const run = await pollRun(second.baseUrl, id, (stored) => stored.state === 'completed', 10_000);
    expect(run.state, JSON.stringify(run)).toBe('completed');
    expect(run.reply?.message.content).toBe('word1 word2 word3 word4 word5 word6 word7 word8');
    expect(run.last_seq).toBeGreaterThan(seen.last_seq);
    const parts = await readRunStream(second.baseUrl, id);
    expect(parts.slice(0, -1).map((part) => part.seq)).toEqual(Array.from({ length: run.last_seq }, (_, i) => i + 1));
    expect(JSON.parse(parts.at(-2)!.data)).toMatchObject({ type: 'finish' });
    // One turn counted: the first attempt saved nothing.
    const stats = (await (await fetch(`${second.baseUrl}/stats`)).json()) as Record<string, unknown>;
    expect(stats).toMatchObject({ invocations: 1, errors: 0 });
  });

  it('with RUN_RETRY_READ_ONLY, a JSON invoke (its tool calls unseen: side effects assumed) is still `runner_lost`', async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'actorkit-takeover-'));
    model.pace = { words: 200, gapMs: 100 };
    const first = await start({ RUN_RETRY_READ_ONLY: 'true' });
    const invoke = fetch(`${first.baseUrl}/agent/invoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ user_identifier: 'runs-user', session_id: 'sqlite-json', message: 'count slowly' }),
    }).catch(() => null);
    // The chat's run in progress, found as useChat's resume finds it: its start part names it.
    let id: string | undefined;
    for (let attempt = 0; attempt < 50 && id === undefined; attempt += 1) {
      const resumed = await fetch(`${first.baseUrl}/agent/invoke/sqlite-json/stream`);
      if (resumed.status === 200) {
        const reader = resumed.body!.getReader();
        const { value } = await reader.read();
        await reader.cancel();
        const [startPart] = parseSse(new TextDecoder().decode(value));
        id = (JSON.parse(startPart!.data) as { messageMetadata: { run_id: string } }).messageMetadata.run_id;
      } else await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(id).toBeDefined();
    await pollRun(first.baseUrl, id!, () => false, 300);
    await kill(first);
    await invoke;

    const second = await start({ RUN_RETRY_READ_ONLY: 'true' });
    const run = await pollRun(second.baseUrl, id!, (stored) => stored.state !== 'running', 1_000, 50);
    expect(run.state).toBe('failed');
    expect(run.problem?.code).toBe('runner_lost');
    expect((await readRun(second.baseUrl, id!)).state).toBe('failed');
  });
});
