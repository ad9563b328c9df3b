import { createActorApp, type ActorApp } from '../../src/app/create-actor-app.js';
import { serve, type ServeHandle } from '../../src/adapter/node/index.js';
import { silentLogger } from '../../src/log/logger.js';
import type { Store } from '../../src/store/store.js';
import { testActorDefinition } from '../../src/testing/create-test-actor.js';

/** An actor served on a loopback port by the Node adapter, without signal handling. */
export interface ServedActor {
  readonly app: ActorApp;
  readonly handle: ServeHandle;
}

/** Builds and serves the test actor on 127.0.0.1 with `env` (and `store` when given). */
export async function serveTestActor(env: Record<string, string>, store?: Store): Promise<ServedActor> {
  const app = createActorApp({
    definition: testActorDefinition,
    env,
    logger: silentLogger,
    ...(store === undefined ? {} : { store }),
  });
  const handle = await serve(app, { port: 0, hostname: '127.0.0.1', signals: false, graceMs: 5_000 });
  return { app, handle };
}

/** What a load run saw: replies by HTTP status, and requests that got no reply at all. */
export interface LoadResult {
  readonly statuses: Map<number, number>;
  readonly noReply: number;
  /** Replies with status 200. */
  readonly ok: number;
}

/**
 * Sends `count` invokes at `concurrency`, spreading them over `urls` in turn (so two
 * instances are invoked alternately). `onSent(n)` runs before the n-th request.
 */
export async function invokeLoad(
  urls: readonly string[],
  count: number,
  concurrency: number,
  onSent?: (sent: number) => void | Promise<void>,
): Promise<LoadResult> {
  const statuses = new Map<number, number>();
  let noReply = 0;
  let sent = 0;
  const worker = async () => {
    while (sent < count) {
      sent += 1;
      const index = sent;
      await onSent?.(index);
      const url = urls[index % urls.length] as string;
      try {
        const response = await fetch(`${url}/agent/invoke`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', 'X-Tenant-Id': `tenant-${index % 3}` },
          body: JSON.stringify({
            user_identifier: `user-${index % 17}`,
            session_id: `session-${index % 41}`,
            message: `hello ${index}`,
          }),
        });
        await response.arrayBuffer();
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      } catch {
        noReply += 1;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { statuses, noReply, ok: statuses.get(200) ?? 0 };
}

/** `GET <url><path>` as JSON, with its status. */
export async function getJson(url: string, path: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${url}${path}`);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}
