import { mkdtempSync, rmSync } from 'node:fs';
import { Agent } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkRuntime, RUNTIMES_UNDER_TEST } from '../contract/runtimes-under-test.js';
import { spawnActor, type SpawnedActor, waitForLogEvent, waitUntilReady, within } from '../contract/spawn-actor.js';
import { NoAnswerError, postJson } from './support/post-json.js';
import { openSocket, parseFirstResponse } from './support/raw-http.js';
import { assertWellFormedAnswer } from './support/response-invariants.js';

// SIGTERM while invokes pour in over keep-alive connections: every request the actor took
// gets its answer (200, or 503 `draining` once the drain began), the rest are refused at the
// connection (never half-answered), nothing waits forever, the process exits 0, and after a
// restart on the same SQLite file /stats counts exactly the 200s. One invoke whose body is
// held back keeps the drain open long enough for the load to meet it.

const WORKERS = 16;
/** Replies received before the signal: enough that the load is in full swing. */
const BEFORE_SIGNAL = 150;
/** 503 `draining` answers to collect before the held-back invoke is let go. */
const DURING_DRAIN = 30;
/** Socket errors that mean the connection was refused or closed before the request was taken. */
const REFUSALS = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'socket hang up']);
const RUNTIMES = RUNTIMES_UNDER_TEST.filter((runtime) => runtime.name === 'node-system' || runtime.name === 'bun');

/** An invoke whose body is sent in two halves: in flight on the server until `finish()`. */
async function heldBackInvoke(baseUrl: string) {
  const body = JSON.stringify({
    user_identifier: 'held-back',
    session_id: 'held-back',
    message: 'keeps the drain open',
  });
  const half = Math.floor(body.length / 2);
  const socket = await openSocket(baseUrl);
  let raw = '';
  socket.setEncoding('latin1');
  socket.on('data', (chunk: string) => (raw += chunk));
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  socket.on('error', () => {});
  socket.write(
    `POST /agent/invoke HTTP/1.1\r\nHost: actor.localhost\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, half)}`,
  );
  return {
    async finish() {
      socket.end(body.slice(half));
      await closed;
      return parseFirstResponse(raw);
    },
  };
}

interface Tally {
  ok: number;
  draining: number;
  refused: number;
  /** Anything else: another status, a broken body, no answer in time. */
  unexpected: string[];
}

for (const runtime of RUNTIMES) {
  describe(`SIGTERM under load on ${runtime.name}`, () => {
    const actors: SpawnedActor[] = [];
    let dataDir: string | undefined;
    afterEach(async () => {
      for (const actor of actors.splice(0)) await actor.dispose();
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    });

    it('no accepted invoke is lost or left unanswered; exit 0; stats exact after a restart on the same SQLite file', async () => {
      checkRuntime(runtime);
      dataDir = mkdtempSync(join(tmpdir(), 'actorkit-sigterm-'));
      const env = { DATABASE_URL: `file:${join(dataDir, 'actor.db')}`, SHUTDOWN_GRACE_MS: '10000' };
      const actor = await spawnActor(runtime, env);
      actors.push(actor);
      await waitUntilReady(actor);
      expect(await waitForLogEvent(actor, 'store_opened')).toMatchObject({
        store: 'sqlite',
        driver: runtime.sqliteDriver,
      });

      const url = new URL('/agent/invoke', actor.baseUrl);
      const agent = new Agent({ keepAlive: true, maxSockets: WORKERS });
      const tally: Tally = { ok: 0, draining: 0, refused: 0, unexpected: [] };
      let exited = false;
      let turn = 0;
      let signalled: () => void = () => {};
      const enoughBeforeSignal = new Promise<void>((resolve) => (signalled = resolve));
      let drainMet: () => void = () => {};
      const enoughDuringDrain = new Promise<void>((resolve) => (drainMet = resolve));
      const worker = async () => {
        while (!exited) {
          turn += 1;
          const body = JSON.stringify({
            user_identifier: `user-${turn % 7}`,
            session_id: `session-${turn % 31}`,
            message: `turn ${turn}`,
          });
          try {
            const answer = await postJson(agent, url, body, 15_000);
            const observed = {
              status: answer.status,
              header: (name: string) => String(answer.headers[name.toLowerCase()] ?? '') || null,
              body: answer.body,
            };
            if (answer.status === 200 && (JSON.parse(answer.body) as { status?: string }).status === 'completed')
              tally.ok += 1;
            else if (answer.status === 503 && (JSON.parse(answer.body) as { code?: string }).code === 'draining') {
              assertWellFormedAnswer(observed, 'POST');
              tally.draining += 1;
            } else tally.unexpected.push(`${answer.status} ${answer.body.slice(0, 200)}`);
          } catch (error) {
            if (error instanceof NoAnswerError && REFUSALS.has(error.code)) tally.refused += 1;
            else tally.unexpected.push(String(error));
          }
          if (tally.ok >= BEFORE_SIGNAL) signalled();
          if (tally.draining >= DURING_DRAIN) drainMet();
        }
      };
      const workers = Promise.all(Array.from({ length: WORKERS }, worker));

      await within(enoughBeforeSignal, 30_000, `${BEFORE_SIGNAL} replies before the signal`);
      const heldBack = await heldBackInvoke(actor.baseUrl);
      await new Promise((resolve) => setTimeout(resolve, 200));
      actor.child.kill('SIGTERM');
      await within(
        enoughDuringDrain,
        10_000,
        `${DURING_DRAIN} draining answers while the held-back invoke is in flight`,
      );
      const heldBackAnswer = await within(heldBack.finish(), 10_000, 'the held-back invoke');
      expect(heldBackAnswer?.status, heldBackAnswer?.body).toBe(200);
      tally.ok += 1;
      const exit = await within(actor.exited, 30_000, `${runtime.name} exit after SIGTERM`);
      exited = true;
      await within(workers, 20_000, 'the load generator to stop');
      agent.destroy();

      expect(exit, actor.output()).toEqual({ code: 0, signal: null });
      expect(tally.unexpected).toEqual([]);
      expect(tally.ok).toBeGreaterThan(BEFORE_SIGNAL);
      expect(tally.draining).toBeGreaterThanOrEqual(DURING_DRAIN);
      expect(actor.logs.map((record) => record.event)).toEqual(
        expect.arrayContaining(['actor_shutdown_started', 'actor_stopped', 'actor_server_closed']),
      );
      expect(actor.logs.find((record) => record.event === 'actor_stopped')).toMatchObject({ pending_stats: 0 });

      const restarted = await spawnActor(runtime, env);
      actors.push(restarted);
      await waitUntilReady(restarted);
      const stats = (await (await fetch(`${restarted.baseUrl}/stats`)).json()) as Record<string, unknown>;
      expect(stats, JSON.stringify(tally)).toMatchObject({ invocations: tally.ok, errors: 0 });
    }, 120_000);
  });
}
