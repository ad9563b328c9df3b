import type { ServeHandle } from '../../../src/adapter/serve-options.js';
import { proxyDatabase, type TestSchemas } from '../../store/postgres-schemas.js';
import type { TcpProxy } from '../../support/tcp-proxy.js';
import { type ReliabilityActor, serveReliabilityActor } from './reliability-actor.js';

/** The reliability actor served on PostgreSQL (a fresh schema) through a loopback proxy the test controls. */
export interface ProxiedPostgresActor {
  readonly actor: ReliabilityActor & { readonly server: ServeHandle };
  readonly proxy: TcpProxy;
  /** Lets the link through again, closes the actor, then the proxy. */
  close(): Promise<void>;
}

/**
 * Creates a schema, puts a pausable proxy in front of it and serves the started reliability
 * actor on it.
 * @param schemas where the schema is created (the caller drops them)
 * @param env more environment of the actor
 */
export async function serveBehindProxy(
  schemas: TestSchemas,
  env: Record<string, string>,
): Promise<ProxiedPostgresActor> {
  const { proxy, url } = await proxyDatabase(await schemas.create());
  const actor = await serveReliabilityActor({ ...env, DATABASE_URL: url });
  await actor.app.actor.start();
  return {
    actor,
    proxy,
    async close() {
      proxy.resume();
      proxy.restore();
      await actor.server.close();
      await proxy.close();
    },
  };
}
