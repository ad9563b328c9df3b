import { request as httpRequest } from 'node:http';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { serve, type ServeHandle } from '../../src/adapter/node/index.js';
import { createActorApp } from '../../src/app/create-actor-app.js';
import { newRunId } from '../../src/core/time-ordered-id.js';
import { silentLogger } from '../../src/log/logger.js';
import { openStore } from '../../src/store/open-store.js';
import type { Store, StoredRun } from '../../src/store/store.js';
import { testActorDefinition } from '../../src/testing/create-test-actor.js';
import { TestSchemas } from './postgres-schemas.js';
import { postgresTestUrl } from './postgres-test-database.js';
import { slowChatHandler } from '../surfaces/slow-chat-handler.js';

const baseUrl = postgresTestUrl('Runs on two PostgreSQL replicas');

/** One server-sent event of a run's stream: its `id` (absent on `[DONE]`) and its data. */
interface Frame {
  readonly id: number | undefined;
  readonly data: string;
}

function frameOf(text: string): Frame {
  const id = /^id: (\d+)$/m.exec(text)?.[1];
  return { id: id === undefined ? undefined : Number(id), data: /^data: (.*)$/m.exec(text)?.[1] ?? '' };
}

/** Splits complete events off `buffered`; returns what is left. */
function takeFrames(buffered: string, frames: Frame[]): string {
  let rest = buffered;
  let end = rest.indexOf('\n\n');
  while (end >= 0) {
    if (rest.slice(0, end).trim() !== '') frames.push(frameOf(rest.slice(0, end)));
    rest = rest.slice(end + 2);
    end = rest.indexOf('\n\n');
  }
  return rest;
}

/** Reads a stream's events as they arrive, to its end. */
async function readFrames(response: Response): Promise<Frame[]> {
  const frames: Frame[] = [];
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return frames;
    buffered = takeFrames(buffered + value, frames);
  }
}

/**
 * Reads a stream's events until `until` holds, then drops the TCP connection, as a client whose
 * network went away does (a fetch's abort may leave the socket open).
 */
function cutStream(
  url: string,
  until: (frames: readonly Frame[]) => boolean,
  body?: unknown,
  onFrame?: (frames: readonly Frame[]) => void,
): Promise<Frame[]> {
  return new Promise((resolve, reject) => {
    const frames: Frame[] = [];
    let buffered = '';
    const request = httpRequest(url, {
      method: body === undefined ? 'GET' : 'POST',
      headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
    });
    request.on('response', (response) => {
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        buffered = takeFrames(buffered + chunk, frames);
        onFrame?.(frames);
        if (until(frames)) {
          request.destroy();
          resolve(frames);
        }
      });
      response.on('end', () => resolve(frames));
    });
    request.on('error', reject);
    request.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

const textOf = (frames: readonly Frame[]) =>
  frames
    .filter((frame) => frame.data.includes('"text-delta"'))
    .map((frame) => JSON.parse(frame.data).delta)
    .join('');

const waitFor = async (check: () => Promise<boolean>, timeoutMs = 10_000, intervalMs = 20) => {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
};

if (baseUrl !== undefined) {
  const schemas = new TestSchemas(baseUrl, 'actorkit_runs');
  afterAll(() => schemas.dropAll());

  describe('takeExpiredRuns from two stores on one database at once (FOR UPDATE SKIP LOCKED)', () => {
    const stores: Store[] = [];
    afterAll(() => Promise.all(stores.splice(0).map((store) => store.close())));

    it('never gives one run to both, and leaves none behind', async () => {
      const url = await schemas.create();
      const [one, two] = await Promise.all([0, 1].map(() => openStore({ url, poolSize: 4, logger: silentLogger })));
      stores.push(one!, two!);
      await one!.migrate();
      const nowMs = Date.now();
      const expired: StoredRun[] = Array.from({ length: 60 }, (_, index) => ({
        id: newRunId(nowMs - 60_000 + index),
        tenantId: 'acme',
        sessionId: `s-${index}`,
        state: 'running',
        background: false,
        createdAtMs: nowMs - 60_000,
        finishedAtMs: null,
        inputTokens: 0,
        outputTokens: 0,
        reply: null,
        problem: null,
        runner: 'dead-runner',
        leaseExpiresAtMs: nowMs - 30_000 + (index % 7),
        cancelRequested: false,
        lastSeq: 0,
        request: '{}',
        sideEffects: false,
        approvals: null,
      }));
      await one!.writeRuns(expired.map((run) => ({ run })));
      const sweeps = [one!, two!].flatMap((store, replica) =>
        Array.from({ length: 8 }, () =>
          store
            .takeExpiredRuns(`replica-${replica}`, nowMs, nowMs + 20_000, 5)
            .then((taken) => taken.map((run) => [run.id, run.runner] as const)),
        ),
      );
      const taken = (await Promise.all(sweeps)).flat();
      const rest = await two!.takeExpiredRuns('replica-1', nowMs, nowMs + 20_000, 100);
      const ids = [...taken.map(([id]) => id), ...rest.map((run) => run.id)];
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids.sort()).toEqual(expired.map((run) => run.id).sort());
      for (const [id, runner] of taken) expect((await one!.readRun(id))?.runner).toBe(runner);
    });
  });

  describe('runs on two replicas of one PostgreSQL', () => {
    const servers: ServeHandle[] = [];
    afterEach(async () => {
      await Promise.all(servers.splice(0).map((server) => server.close()));
    });

    /** Replicas A and B on one fresh schema, each with its own instance id and its own slow handler, served on real ports. */
    async function replicas(words: readonly string[], gapMs: number, leaseMs = 4_000) {
      const url = await schemas.create();
      const started = [];
      for (const instanceId of ['replica-a', 'replica-b']) {
        const handler = slowChatHandler(words, gapMs);
        const app = createActorApp({
          definition: testActorDefinition,
          env: { DATABASE_URL: url, INSTANCE_ID: instanceId, RUN_LEASE_MS: String(leaseMs) },
          logger: silentLogger,
          chatHandler: handler,
        });
        const server = await serve(app, { port: 0, hostname: '127.0.0.1', signals: false, graceMs: 2_000 });
        servers.push(server);
        started.push({ url: server.url, handler });
      }
      const [a, b] = started as [(typeof started)[0], (typeof started)[0]];
      return { a, b, url };
    }

    /** Starts a background run on a replica; resolves with its id. */
    async function backgroundRun(replicaUrl: string, sessionId: string): Promise<string> {
      const accepted = await fetch(`${replicaUrl}/agent/invoke`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ user_identifier: 'u-1', session_id: sessionId, message: 'hello', background: true }),
      });
      expect(accepted.status).toBe(202);
      return (await accepted.json()).id;
    }

    const runOn = async (replicaUrl: string, id: string) => (await fetch(`${replicaUrl}/agent/runs/${id}`)).json();

    it('a stream cut half-way on A resumes on B after Last-Event-ID: the whole answer, each part once', async () => {
      const words = Array.from({ length: 16 }, (_, index) => `w${index}`);
      const { a, b } = await replicas(words, 60);
      const id = await backgroundRun(a.url, 's-resume');
      const cut = await cutStream(
        `${a.url}/agent/runs/${id}/stream`,
        (frames) => frames.filter((frame) => frame.data.includes('"text-delta"')).length >= 5,
      );
      const lastId = cut.at(-1)!.id!;
      expect((await runOn(b.url, id)).state).toBe('running');

      const resumed = await readFrames(
        await fetch(`${b.url}/agent/runs/${id}/stream`, { headers: { 'Last-Event-ID': String(lastId) } }),
      );
      expect(resumed.at(-1)).toEqual({ id: undefined, data: '[DONE]' });
      const joined = [...cut, ...resumed.slice(0, -1)];
      expect(joined.map((frame) => frame.id)).toEqual(joined.map((_, index) => index + 1));

      const whole = await readFrames(await fetch(`${b.url}/agent/runs/${id}/stream?after=0`));
      expect([...joined, resumed.at(-1)]).toEqual(whole);
      expect(textOf(joined)).toBe(words.map((word) => `${word} `).join(''));
      const completed = await runOn(b.url, id);
      expect(completed).toMatchObject({ state: 'completed', last_seq: joined.length });
      expect(completed.reply.message.content).toBe(textOf(joined));
    });

    it('a cancel sent to B stops the run on A within 2 s; the stream on A ends with a finish that says cancelled', async () => {
      const words = Array.from({ length: 60 }, (_, index) => `w${index}`);
      const { a, b } = await replicas(words, 100);
      const id = await backgroundRun(a.url, 's-cancel');
      let seen = 0;
      const streamOnA = cutStream(
        `${a.url}/agent/runs/${id}/stream`,
        () => false,
        undefined,
        (frames) => {
          seen = frames.length;
        },
      );
      await waitFor(async () => seen >= 4);

      const cancel = await fetch(`${b.url}/agent/runs/${id}/cancel`, { method: 'POST' });
      const cancelAnsweredMs = performance.now();
      expect(cancel.status).toBe(202);
      expect(await cancel.json()).toMatchObject({ id, state: 'running' });
      // When each replica first shows the run cancelled: A from its memory, B from the store.
      const cancelledMs: Record<string, number> = {};
      await waitFor(async () => {
        for (const replica of [a.url, b.url])
          if (cancelledMs[replica] === undefined && (await runOn(replica, id)).state === 'cancelled')
            cancelledMs[replica] = performance.now();
        return Object.keys(cancelledMs).length === 2;
      });
      const [onA, onB] = [a.url, b.url].map((replica) => cancelledMs[replica]! - cancelAnsweredMs) as [number, number];
      const abortLatencyMs = a.handler.abortedAtMs()! - cancelAnsweredMs;
      console.info(
        `[runs replicas] cancel sent to B, run on A: handler aborted ${abortLatencyMs.toFixed(0)} ms, cancelled on A ${onA.toFixed(0)} ms, on B ${onB.toFixed(0)} ms after the 202`,
      );
      expect(a.handler.abortedAtMs()).toBeDefined();
      expect(abortLatencyMs).toBeLessThan(2_000);
      expect(onA).toBeLessThan(2_000);
      expect(onB).toBeLessThan(2_000);
      expect(b.handler.abortedAtMs()).toBeUndefined();

      const frames = await streamOnA;
      expect(frames.at(-1)).toEqual({ id: undefined, data: '[DONE]' });
      expect(JSON.parse(frames.at(-2)!.data)).toMatchObject({
        type: 'finish',
        messageMetadata: { run_id: id, run_state: 'cancelled' },
      });
      for (const replica of [a.url, b.url])
        expect(await runOn(replica, id)).toMatchObject({
          state: 'cancelled',
          last_seq: frames.length - 1,
          problem: { code: 'run_cancelled' },
        });
    });

    it('GET /agent/runs/{id} on B shows a run started on A: running, then completed with its reply', async () => {
      const words = ['one', 'two', 'three', 'four', 'five', 'six'];
      const { a, b } = await replicas(words, 100);
      const id = await backgroundRun(a.url, 's-status');
      expect(await runOn(b.url, id)).toMatchObject({
        id,
        session_id: 's-status',
        state: 'running',
        background: true,
        finished_at: null,
      });
      await waitFor(async () => (await runOn(b.url, id)).last_seq > 1);
      expect((await runOn(b.url, id)).state).toBe('running');
      await waitFor(async () => (await runOn(b.url, id)).state === 'completed');
      const completed = await runOn(b.url, id);
      expect(completed.reply).toMatchObject({ id, message: { content: 'one two three four five six ' } });
      expect(completed.usage).toEqual({ input_tokens: 3, output_tokens: 6, total_tokens: 9 });
      expect(completed.finished_at).not.toBeNull();
      expect(await runOn(a.url, id)).toEqual(completed);
    });
    it("a streamed invoke cut on A names its run in its start part; B resumes it after Last-Event-ID, and useChat's resume route on B gives it whole", async () => {
      const words = Array.from({ length: 12 }, (_, index) => `w${index}`);
      const { a, b } = await replicas(words, 60);
      const cut = await cutStream(
        `${a.url}/agent/invoke`,
        (frames) => frames.filter((frame) => frame.data.includes('"text-delta"')).length >= 3,
        { user_identifier: 'u-1', session_id: 's-chat', message: 'hello', stream: true },
      );
      const start = JSON.parse(cut[0]!.data);
      expect(start).toMatchObject({ type: 'start', messageMetadata: { run_id: expect.stringMatching(/^inv_/) } });
      const id: string = start.messageMetadata.run_id;
      const lastId = cut.at(-1)!.id!;
      const [rest, whole] = await Promise.all([
        readFrames(await fetch(`${b.url}/agent/runs/${id}/stream`, { headers: { 'Last-Event-ID': String(lastId) } })),
        readFrames(await fetch(`${b.url}/agent/invoke/s-chat/stream`)),
      ]);
      const joined = [...cut, ...rest];
      expect(joined.map((frame) => frame.id)).toEqual([...joined.slice(0, -1).map((_, index) => index + 1), undefined]);
      expect(joined).toEqual(whole);
      expect(textOf(whole)).toBe(words.map((word) => `${word} `).join(''));
      expect((await runOn(b.url, id)).state).toBe('completed');
      expect((await fetch(`${b.url}/agent/invoke/s-chat/stream`)).status).toBe(204);
    });

    it('a run silent for longer than a short lease (RUN_LEASE_MS=1000) keeps it: no sweep, however often, finds it expired', async () => {
      const { a, b, url } = await replicas(['late'], 3_000, 1_000);
      const sweeper = await openStore({ url, poolSize: 1, logger: silentLogger });
      try {
        const id = await backgroundRun(a.url, 's-silent');
        const taken: string[] = [];
        // A sweep every few milliseconds, besides B's own every quarter lease, while the run is silent.
        while (taken.length === 0 && (await sweeper.readRun(id))?.state === 'running') {
          const nowMs = Date.now();
          taken.push(...(await sweeper.takeExpiredRuns('sweeper', nowMs, nowMs + 60_000, 10)).map((run) => run.id));
          await new Promise((resolve) => setTimeout(resolve, 3));
        }
        expect(taken).toEqual([]);
        expect(await runOn(b.url, id)).toMatchObject({ state: 'completed', reply: { message: { content: 'late ' } } });
        expect(await runOn(a.url, id)).toMatchObject({ state: 'completed' });
      } finally {
        await sweeper.close();
      }
    });
  });
}
