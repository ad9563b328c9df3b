import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve, type ServeHandle } from '../../src/adapter/node/index.js';
import { afterEach } from 'vitest';
import type { ActorApp } from '../../src/app/create-actor-app.js';
import type { CreateActorAppOptions } from '../../src/app/create-actor-app-options.js';
import { createTestActor } from '../../src/testing/create-test-actor.js';

/** A plain `node:http` server on a free loopback port. */
export interface LoopbackServer {
  readonly url: string;
  readonly port: number;
  readonly server: Server;
  /** Closes the server and every connection it still holds. */
  close(): Promise<void>;
}

/**
 * Starts `handler` on `127.0.0.1` on a free port.
 * @param handler the request listener
 */
export function listenOnLoopback(handler: RequestListener): Promise<LoopbackServer> {
  const server = createServer(handler);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}`,
        port,
        server,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

/** A port on which nothing listens (bound, then released). */
export async function deadPort(): Promise<number> {
  const probe = await listenOnLoopback(() => {});
  await probe.close();
  return probe.port;
}

/**
 * Serves an actor app on a free loopback port through the Node adapter (no signal handlers).
 * @param app the actor app
 */
export function serveOnLoopback(app: ActorApp): Promise<ServeHandle> {
  return serve(app, { port: 0, hostname: '127.0.0.1', signals: false, graceMs: 1_000 });
}

/**
 * Serves test actors (`createTestActor` with `base`, then each call's options) on loopback for
 * the calling test file: each is closed and shut down after its test.
 * @param base the options every actor of the file starts from, e.g. its definition and tools
 * @returns what serves one, from more `createTestActor` options, and resolves with its base URL
 */
export function testActorsForThisFile(
  base: Partial<CreateActorAppOptions>,
): (options?: Partial<CreateActorAppOptions>) => Promise<string> {
  let served: ServeHandle | undefined;
  let stop: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await served?.close();
    await stop?.();
    served = undefined;
    stop = undefined;
  });
  return async (options = {}) => {
    const app = await createTestActor({ ...base, ...options });
    stop = () => app.actor.shutdown({ graceMs: 2_000 });
    served = await serveOnLoopback(app);
    return served.url;
  };
}
