import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { checkRuntime, RUNTIMES_UNDER_TEST } from '../contract/runtimes-under-test.js';
import { spawnActor, type SpawnedActor, waitUntilReady, within } from '../contract/spawn-actor.js';
import { openSocket } from './support/raw-http.js';

// Many connections that send nothing (or half a request) must not stop an actor answering,
// nor keep it from shutting down. Node and Bun; Deno keeps silent clients open for as long
// as they like (src/adapter/README.md), so it runs behind a proxy that enforces time-outs.
// Bun listens with TCP_DEFER_ACCEPT: a connection that never sends a byte is not even
// accepted (it waits in SYN-RECV in the kernel), so only the half-sent ones reach the server.

const IDLE = 500;
const HALF_SENT = 50;
const RUNTIMES = RUNTIMES_UNDER_TEST.filter((runtime) => runtime.name === 'node-system' || runtime.name === 'bun');

const chatRequest = (message: string) =>
  JSON.stringify({ user_identifier: 'idle-user', session_id: 'idle-session', message });

for (const runtime of RUNTIMES) {
  describe(`many idle connections on ${runtime.name}`, () => {
    let actor: SpawnedActor | undefined;
    const sockets: Socket[] = [];
    afterEach(async () => {
      for (const socket of sockets.splice(0)) socket.destroy();
      await actor?.dispose();
    });

    it(`${IDLE} idle and ${HALF_SENT} half-sent connections: it still answers every route, counts exactly, and shuts down on SIGTERM`, async () => {
      checkRuntime(runtime);
      actor = await spawnActor(runtime, { SHUTDOWN_GRACE_MS: '1000' });
      await waitUntilReady(actor);
      const { baseUrl } = actor;
      const halfSentClosed: Promise<void>[] = [];
      for (let index = 0; index < IDLE + HALF_SENT; index += 1) {
        const socket = await openSocket(baseUrl);
        socket.on('error', () => {});
        if (index >= IDLE) {
          halfSentClosed.push(new Promise((resolve) => socket.once('close', () => resolve())));
          socket.write('POST /agent/invoke HTTP/1.1\r\nHost: actor.localhost\r\nContent-Type: application/js');
        }
        sockets.push(socket);
      }

      for (let round = 0; round < 5; round += 1) {
        expect((await fetch(`${baseUrl}/health`)).status).toBe(200);
        expect((await fetch(`${baseUrl}/ready`)).status).toBe(200);
        const reply = await fetch(`${baseUrl}/agent/invoke`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: chatRequest(`round ${round}`),
        });
        expect(reply.status, await reply.clone().text()).toBe(200);
        expect(await reply.json()).toMatchObject({ status: 'completed' });
      }
      expect(await (await fetch(`${baseUrl}/stats`)).json()).toMatchObject({ invocations: 5, errors: 0 });
      expect(sockets.filter((socket) => socket.destroyed)).toHaveLength(0);

      actor.child.kill('SIGTERM');
      const exit = await within(
        actor.exited,
        20_000,
        `${runtime.name} exit after SIGTERM with ${IDLE + HALF_SENT} connections open`,
      );
      expect(exit, actor.output()).toEqual({ code: 0, signal: null });
      await within(Promise.all(halfSentClosed), 5_000, 'the server closing the half-sent connections');
    }, 120_000);
  });
}
