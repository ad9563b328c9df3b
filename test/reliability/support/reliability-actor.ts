import { readFileSync } from 'node:fs';
import { createActorApp, type ActorApp } from '../../../src/app/create-actor-app.js';
import { serve } from '../../../src/adapter/node/index.js';
import type { ServeHandle } from '../../../src/adapter/serve-options.js';
import { createLogger, createMemorySink, type LogRecord } from '../../../src/log/logger.js';
import { testActorDefinition } from '../../../src/testing/create-test-actor.js';

/** The baked platform configuration the reliability actor serves (with an ETag). */
const platformConfig: unknown = JSON.parse(
  readFileSync(new URL('../../fixtures/platform-config/base.json', import.meta.url), 'utf8'),
);

/** An actor built by `createActorApp` with its real store (SQLite), keeping its log records. */
export interface ReliabilityActor {
  readonly app: ActorApp;
  /** Every record the actor logged at `warn` or above. */
  readonly logs: LogRecord[];
}

function buildActor(env: Record<string, string>): ReliabilityActor {
  const sink = createMemorySink();
  const app = createActorApp({
    definition: testActorDefinition,
    env: { DATABASE_URL: 'memory://', ...env },
    logger: createLogger({ level: 'warn', sink }),
    platformConfig,
  });
  return { app, logs: sink.records };
}

/**
 * Builds and starts the test actor (src/testing) on the real store `DATABASE_URL` names
 * (in-memory SQLite unless `env` says otherwise), logging into memory.
 * @param env environment of the actor
 */
export async function startReliabilityActor(env: Record<string, string> = {}): Promise<ReliabilityActor> {
  const actor = buildActor(env);
  await actor.app.actor.start();
  return actor;
}

/** Error-level log records that mean the runtime met something it did not expect (an unhandled error). */
export function unexpectedErrors(logs: readonly LogRecord[]): LogRecord[] {
  return logs.filter((record) => record.level === 'error');
}

/**
 * Builds the test actor and serves it on a free loopback port with the Node adapter
 * (signals off: the test closes it).
 * @param env environment of the actor
 */
export async function serveReliabilityActor(
  env: Record<string, string> = {},
): Promise<ReliabilityActor & { readonly server: ServeHandle }> {
  const actor = buildActor(env);
  const server = await serve(actor.app, { port: 0, hostname: '127.0.0.1', signals: false });
  return { ...actor, server };
}
