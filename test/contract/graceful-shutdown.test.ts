import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { chatRequest, expectProblem } from './actor-contract.js';
import { checkRuntime, RUNTIMES_UNDER_TEST } from './runtimes-under-test.js';
import { spawnActor, type SpawnedActor, waitUntilReady, within } from './spawn-actor.js';

/** An invoke whose body is sent in two halves: in flight on the server until `finish()`. */
function startSlowInvoke(baseUrl: string, body: string) {
  const bytes = Buffer.from(body);
  const half = Math.floor(bytes.length / 2);
  const url = new URL('/agent/invoke', baseUrl);
  let request: ReturnType<typeof httpRequest>;
  const response = new Promise<{ status: number; text: string }>((resolve, reject) => {
    request = httpRequest(
      url,
      {
        method: 'POST',
        agent: false,
        headers: { 'Content-Type': 'application/json', 'Content-Length': String(bytes.length) },
      },
      (incoming) => {
        let text = '';
        incoming.setEncoding('utf8');
        incoming.on('data', (chunk: string) => (text += chunk));
        incoming.on('end', () => resolve({ status: incoming.statusCode ?? 0, text }));
        incoming.on('error', reject);
      },
    );
    request.on('error', reject);
    request.flushHeaders();
    request.write(bytes.subarray(0, half));
  });
  return { response, finish: () => request.end(bytes.subarray(half)) };
}

async function pollReady(baseUrl: string, status: number, timeoutMs: number): Promise<Record<string, unknown>> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    const response = await fetch(`${baseUrl}/ready`);
    last = await response.text();
    if (response.status === status) return JSON.parse(last) as Record<string, unknown>;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`/ready never answered ${status} within ${timeoutMs} ms; last: ${last}`);
}

for (const runtime of RUNTIMES_UNDER_TEST) {
  describe(`graceful shutdown on ${runtime.name}`, () => {
    let actor: SpawnedActor | undefined;
    afterEach(async () => {
      await actor?.dispose();
    });

    it('SIGTERM: /ready turns 503, new invokes get 503 draining, the in-flight request completes, exit 0', async () => {
      checkRuntime(runtime);
      actor = await spawnActor(runtime, { SHUTDOWN_GRACE_MS: '20000' });
      await waitUntilReady(actor);
      const { baseUrl } = actor;

      const slow = startSlowInvoke(baseUrl, JSON.stringify(chatRequest({ session_id: 'in-flight' })));
      // A round trip on another connection after the slow request's headers went out lets the
      // server take the slow request in before the signal arrives.
      expect((await fetch(`${baseUrl}/health`)).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 200));

      actor.child.kill('SIGTERM');
      expect(await pollReady(baseUrl, 503, 10_000)).toMatchObject({ status: 'not_ready', reason: 'draining' });
      const refused = await fetch(`${baseUrl}/agent/invoke`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(chatRequest()),
      });
      await expectProblem(refused, 503, 'draining');

      slow.finish();
      const { status, text } = await within(slow.response, 10_000, 'the in-flight invoke');
      expect(status, text).toBe(200);
      expect(JSON.parse(text)).toMatchObject({ session_id: 'in-flight', status: 'completed' });

      const exit = await within(actor.exited, 20_000, `${runtime.name} exit after SIGTERM`);
      expect(exit, actor.output()).toEqual({ code: 0, signal: null });
      const events = actor.logs.map((record) => record.event);
      expect(events).toEqual(expect.arrayContaining(['actor_shutdown_started', 'actor_server_closed']));
      expect(actor.logs.find((record) => record.event === 'actor_shutdown_started')).toMatchObject({
        reason: 'SIGTERM',
        grace_ms: 20_000,
      });
    });
  });
}
