// Replicas on one PostgreSQL database and a run that waits for a person's approval: the run
// pauses on replica A, its answer goes to replica B, and B goes on with it to the end; the tool
// runs exactly once, and an answer sent to A meanwhile gets 409, never a second run. A replica
// killed (SIGKILL) while its run waits holds nothing of it: B still completes it.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { ActorApp } from '../../src/app/create-actor-app.js';
import { silentLogger } from '../../src/log/logger.js';
import { openStore } from '../../src/store/open-store.js';
import type { Store } from '../../src/store/store.js';
import { createTestActor } from '../../src/testing/create-test-actor.js';
import { completion, fakeOpenAIForThisFile } from '../agent/fake-openai-server.js';
import { within } from '../contract/spawn-actor.js';
import { TestSchemas } from '../store/postgres-schemas.js';
import { postgresTestUrl } from '../store/postgres-test-database.js';
import { mailSendTool } from './support/mail-approval-tool.js';

const REPLICA_SCRIPT = new URL('./support/approval-replica-process.ts', import.meta.url).pathname;
/** The answers a replica that lost the race gives: the run went on elsewhere, or its approval was decided there. */
const LOST_RACE = ['run_not_awaiting_input', 'approval_already_decided'];
const baseUrl = postgresTestUrl('approvals across replicas on PostgreSQL');

if (baseUrl !== undefined) {
  describe('a run waiting for approval, across replicas on PostgreSQL', async () => {
    const model = await fakeOpenAIForThisFile();
    const schemas = new TestSchemas(baseUrl, 'actorkit_approvals');
    const running: ActorApp[] = [];
    const stores: Store[] = [];
    afterEach(async () => {
      for (const app of running.splice(0)) await app.actor.shutdown({ graceMs: 1_000 });
      for (const store of stores.splice(0)) await store.close().catch(() => {});
    });
    afterAll(() => schemas.dropAll());

    const modelEnv = () => ({
      LLM_BASE_URL: model.baseUrl,
      LLM_MODEL: 'fake-model',
      LLM_API_KEY: 'sk-test',
      LLM_MAX_RETRIES: '0',
      LLM_TIMEOUT_MS: '5000',
    });

    /** A replica in this process on the database `url` names, with `mail_send` recording into `sent`. */
    async function replica(
      url: string,
      instanceId: string,
      sent: string[],
      whileSending?: () => Promise<void>,
    ): Promise<{ app: ActorApp; store: Store }> {
      const store = await openStore({ url, logger: silentLogger });
      stores.push(store);
      const app = await createTestActor({
        env: { ...modelEnv(), INSTANCE_ID: instanceId },
        tools: [mailSendTool(sent, whileSending)],
        store,
      });
      running.push(app);
      return { app, store };
    }

    const invoke = (payload: Record<string, unknown>) =>
      new Request('http://actor/agent/invoke', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Tenant-Id': 'acme' },
        body: JSON.stringify({ user_identifier: 'ann', ...payload }),
      });
    const decide = (runId: string, approvalId: string) =>
      new Request(`http://actor/agent/runs/${runId}/approvals/${approvalId}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Tenant-Id': 'acme' },
        body: JSON.stringify({ approved: true }),
      });
    /** Scripts the model: first a call of `mail_send` to `to`, then, once its result is back, `text`. */
    const scriptMail = (callId: string, to: string, text: string) =>
      model.reply(
        {
          kind: 'json',
          body: completion(null, {
            toolCalls: [{ id: callId, name: 'mail_send', arguments: JSON.stringify({ to, body: 'hi' }) }],
          }),
        },
        { kind: 'json', body: completion(text) },
      );
    /** Asks `app` to mail `to` in `session`: the run pauses, `awaiting_input`, with one approval. */
    async function pausedRun(
      app: { request(request: Request): Response | Promise<Response> },
      session: string,
      to: string,
    ) {
      const paused = (await (await app.request(invoke({ session_id: session, message: `Mail ${to}` }))).json()) as {
        id: string;
        status: string;
        approvals: { id: string; tool: string }[];
      };
      expect(paused).toMatchObject({ status: 'awaiting_input', approvals: [{ tool: 'mail_send' }] });
      return { runId: paused.id, approvalId: paused.approvals[0]!.id };
    }
    /** Polls the run through `app` until it ended. */
    async function endedRun(
      app: ActorApp,
      runId: string,
    ): Promise<{ state: string; reply?: { message: { content: string } } }> {
      const deadline = Date.now() + 10_000;
      for (;;) {
        const run = await (await app.request(`/agent/runs/${runId}`, { headers: { 'X-Tenant-Id': 'acme' } })).json();
        if (!['running', 'queued', 'awaiting_input'].includes(run.state) || Date.now() > deadline) return run;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }

    /** The run's row once its end is written (its runner writes it a moment after it answered). */
    async function storedEnd(store: Store, runId: string) {
      const deadline = Date.now() + 10_000;
      for (;;) {
        const run = await store.readRun(runId);
        if (run === null || ['completed', 'failed', 'cancelled'].includes(run.state) || Date.now() > deadline)
          return run;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }

    it('an invoke with the approval, sent to B, goes on there to the end; the same answer to A meanwhile gets 409', async () => {
      const url = await schemas.create();
      const sent: string[] = [];
      let release = () => {};
      const held = new Promise<void>((resolve) => (release = resolve));
      let sending = () => {};
      const sendingStarted = new Promise<void>((resolve) => (sending = resolve));
      const a = await replica(url, 'replica-a', sent);
      const b = await replica(url, 'replica-b', sent, () => {
        sending();
        return held;
      });
      scriptMail('call_1', 'ada@x', 'Mailed Ada.');

      const started = performance.now();
      const { runId, approvalId } = await pausedRun(a.app, 'chat-1', 'ada@x');
      expect(sent).toEqual([]);
      const answer = { session_id: 'chat-1', approvals: [{ id: approvalId, approved: true }] };
      const onB = b.app.request(invoke(answer));
      await within(sendingStarted, 5_000, 'the tool to run on B');
      expect(await b.store.readRun(runId)).toMatchObject({ state: 'running', runner: 'replica-b' });
      // While B runs the approved call, A is asked the same: the run waits for nothing any more.
      const onA = await a.app.request(invoke(answer));
      expect(onA.status).toBe(409);
      // The approval id names its run, which B has taken: its approval is decided already.
      expect((await onA.json()).code).toBe('approval_already_decided');
      release();
      const done = await onB;
      expect(done.status).toBe(200);
      expect(await done.json()).toMatchObject({ id: runId, status: 'completed', message: { content: 'Mailed Ada.' } });
      console.log(
        `[approvals replicas] paused on A, approved and completed on B in ${(performance.now() - started).toFixed(0)} ms`,
      );
      expect(sent).toEqual(['ada@x']);
      expect(model.requests).toHaveLength(2);
      expect(await storedEnd(a.store, runId)).toMatchObject({ state: 'completed', runner: 'replica-b' });
    });

    it('of the same decision sent to A and B at once (POST /agent/runs/{id}/approvals/{approval_id}), one wins and the run completes once', async () => {
      const url = await schemas.create();
      const sent: string[] = [];
      const a = await replica(url, 'replica-a', sent);
      const b = await replica(url, 'replica-b', sent);
      const rounds = 5;
      const winners: string[] = [];
      for (let round = 0; round < rounds; round += 1) {
        scriptMail(`call_${round}`, `to-${round}@x`, `Mailed ${round}.`);
        const { runId, approvalId } = await pausedRun(a.app, `race-${round}`, `to-${round}@x`);
        const [onB, onA] = await Promise.all([
          b.app.request(decide(runId, approvalId)),
          a.app.request(decide(runId, approvalId)),
        ]);
        expect([onB.status, onA.status].sort()).toEqual([200, 409]);
        const lost = onB.status === 409 ? onB : onA;
        expect(LOST_RACE).toContain((await lost.json()).code);
        const run = await endedRun(b.app, runId);
        expect(run).toMatchObject({ state: 'completed', reply: { message: { content: `Mailed ${round}.` } } });
        winners.push((await storedEnd(b.store, runId))?.runner ?? 'nobody');
      }
      console.log(`[approvals replicas] decisions sent to both at once, won by: ${winners.join(', ')}`);
      expect(sent).toEqual(Array.from({ length: rounds }, (_, round) => `to-${round}@x`));
      // Per round, the call that paused the run and one continuation: never a second run.
      expect(model.requests).toHaveLength(2 * rounds);
    });

    it('A killed (SIGKILL) while its run waits: the approval sent to B still completes the run there', async () => {
      const url = await schemas.create();
      const child = spawn(process.execPath, ['--import', 'tsx', REPLICA_SCRIPT], {
        env: { PATH: process.env.PATH ?? '', ...modelEnv(), DATABASE_URL: url, INSTANCE_ID: 'replica-a' },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      const exited = new Promise((resolve) => child.once('exit', resolve));
      try {
        const firstLine = createInterface({ input: child.stdout! })[Symbol.asyncIterator]().next();
        const { port } = JSON.parse((await within(firstLine, 20_000, 'replica A to listen')).value as string);
        const a = {
          request: (request: Request) =>
            fetch(new Request(`http://127.0.0.1:${port}${new URL(request.url).pathname}`, request)),
        };
        scriptMail('call_k', 'kim@x', 'Mailed Kim.');
        const { runId, approvalId } = await pausedRun(a, 'chat-k', 'kim@x');
        child.kill('SIGKILL');
        await within(exited, 5_000, 'A to die');
        const killedAt = performance.now();

        const sent: string[] = [];
        const b = await replica(url, 'replica-b', sent);
        expect(await b.store.readRun(runId)).toMatchObject({ state: 'awaiting_input', runner: 'replica-a' });
        const done = await b.app.request(
          invoke({ session_id: 'chat-k', approvals: [{ id: approvalId, approved: true }] }),
        );
        expect(done.status).toBe(200);
        expect(await done.json()).toMatchObject({
          id: runId,
          status: 'completed',
          message: { content: 'Mailed Kim.' },
        });
        console.log(
          `[approvals replicas] A killed while waiting; B completed the run ${(performance.now() - killedAt).toFixed(0)} ms after the kill`,
        );
        expect(sent).toEqual(['kim@x']);
        expect(await storedEnd(b.store, runId)).toMatchObject({ state: 'completed', runner: 'replica-b' });
      } finally {
        child.kill('SIGKILL');
      }
    });
  });
}
