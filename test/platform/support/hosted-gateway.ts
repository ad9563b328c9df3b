import {
  createPlatformGateway,
  type PlatformGateway,
  type PlatformGatewayOptions,
} from '../../../platform/gateway/index.js';
import type { TestSchemas } from '../../store/postgres-schemas.js';
import { startExamplePools, type ExamplePools } from './example-pools.js';
import type { InProcessPool } from './in-process-pool.js';
import { serveOnLoopbackPort } from './serve-gateway.js';

/** Example pools (two replicas each on PostgreSQL, or in memory) and the gateway in front of them, served on loopback. */
export interface HostedGateway {
  readonly hosted: ExamplePools;
  readonly gateway: PlatformGateway;
  /** The gateway's URL, e.g. `http://127.0.0.1:41234`. */
  readonly url: string;
  close(): Promise<void>;
}

/**
 * Starts both example instances (two replicas each, one fresh schema each) and the gateway.
 * @param schemas where the databases are made
 * @param options the gateway's options besides the pools
 * @param beforeGateway runs once the replicas are up, before the gateway exists
 */
export async function startHostedGateway(
  schemas: TestSchemas,
  options: Omit<PlatformGatewayOptions, 'pools'>,
  beforeGateway: (hosted: ExamplePools) => Promise<void> = async () => {},
): Promise<HostedGateway> {
  const hosted = await startExamplePools({ panel: await schemas.create(), mcp: await schemas.create() }, 2);
  await beforeGateway(hosted);
  return serveGatewayOver(hosted, options, () => schemas.dropAll());
}

/**
 * The gateway in front of example pools already started, served on loopback; its `close` ends the
 * server, the gateway, the pools, then `after` (what the pools stood on).
 * @param hosted the example pools
 * @param options the gateway's options besides the pools
 * @param after what to close last
 */
export async function serveGatewayOver(
  hosted: ExamplePools,
  options: Omit<PlatformGatewayOptions, 'pools'>,
  after: () => Promise<void>,
): Promise<HostedGateway> {
  const gateway = createPlatformGateway({ pools: hosted.pools, ...options });
  const served = await serveOnLoopbackPort(gateway.fetch);
  return {
    hosted,
    gateway,
    url: served.url,
    close: async () => {
      await served.close();
      await gateway.close();
      await hosted.close();
      await after();
    },
  };
}

/** A REST chat through the edge of `ref`, with its current edge key. */
export function chatThroughEdge(
  front: HostedGateway,
  ref: string,
  message: string,
  session: string,
): Promise<Response> {
  return fetch(`${front.url}/api/v1/k/${ref}/chat`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-API-Key': front.gateway.edgeKey(ref) as string },
    body: JSON.stringify({ user_identifier: 'load', session_id: session, message }),
  });
}

/** A chat sent straight to one replica, around the gateway (as the owner's tenant). */
export function chatAroundGateway(pool: InProcessPool, session: string): Promise<Response> {
  return pool.forwardTo(
    0,
    new Request('http://replica.invalid/agent/invoke', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Tenant-Id': 'owner' },
      body: JSON.stringify({ user_identifier: 'u', session_id: session, message: 'hi' }),
    }),
  );
}

/**
 * Reconciles until the instance's gateway count reaches `answered` with nothing under way (the
 * watch has seen its runs end); answers the instance's last reading either way.
 * @param gateway the gateway
 * @param ref the instance
 * @param answered the count awaited
 */
export async function reconciledAt(gateway: PlatformGateway, ref: string, answered: number) {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const actor = (await gateway.reconcile()).actors.find((candidate) => candidate.ref === ref);
    if (actor?.answered === answered && actor.in_flight === 0) return actor;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return (await gateway.reconcile()).actors.find((candidate) => candidate.ref === ref);
}
