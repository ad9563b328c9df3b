// The A2A edge the A2A client tests talk to (issue #39): the external edge of the local platform,
// served on loopback in front of the example pools, the mesh actor (rendered with expose_a2a=true)
// answering from a slow model, so a run is still going when it is cancelled or subscribed to.
import type { PlatformGateway } from '../../../platform/gateway/index.js';
import { startSlowModelServer } from '../../reliability/support/slow-model-server.js';
import { startExamplePools } from './example-pools.js';
import { serveGatewayOver } from './hosted-gateway.js';

/** The edge, on a loopback URL. */
export interface A2aEdge {
  readonly gateway: PlatformGateway;
  /** The edge's origin, e.g. `http://127.0.0.1:41234`. */
  readonly url: string;
  close(): Promise<void>;
}

/**
 * Starts the slow model, the example pools on in-memory stores, and the edge in front of them.
 * @param words how many words the slow model answers (`word1 … wordN`)
 * @param gapMs the wait before each word
 */
export async function startA2aEdge(words: number, gapMs: number): Promise<A2aEdge> {
  const model = await startSlowModelServer({ words, gapMs });
  const hosted = await startExamplePools(
    { panel: 'memory://', mcp: 'memory://' },
    1,
    {},
    { LLM_BASE_URL: model.baseUrl, LLM_MODEL: 'slow' },
  );
  return serveGatewayOver(hosted, { reconcileIntervalMs: 0, runPollIntervalMs: 10 }, () => model.close());
}
