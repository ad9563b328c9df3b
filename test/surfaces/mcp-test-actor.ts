import * as v from 'valibot';
import { ActorTool } from '../../src/agent/actor-tool.js';
import { defaultActorFeatures, type ActorDefinition } from '../../src/core/actor-definition.js';
import { afterEach } from 'vitest';
import type { ServeHandle } from '../../src/adapter/serve-options.js';
import type { CreateActorAppOptions } from '../../src/app/create-actor-app-options.js';
import { createTestActor, testActorDefinition } from '../../src/testing/create-test-actor.js';
import { serveOnLoopback } from './loopback.js';

/** The test actor (src/testing) with `expose_mcp` on. */
export const mcpTestDefinition: ActorDefinition = {
  ...testActorDefinition,
  features: { ...defaultActorFeatures, exposeMcp: true },
};

/** A read-only tool `/mcp` offers: `{topic}` → `{topic, text: "about <topic>"}`. */
export const lookupTool = new ActorTool({
  name: 'test_lookup',
  description: 'Looks a topic up',
  readOnly: true,
  argsSchema: v.object({ topic: v.pipe(v.string(), v.minLength(1)) }),
  run: ({ topic }) => ({ topic, text: `about ${topic}` }),
});

/** The headers a raw Streamable HTTP POST to `/mcp` needs. */
export const MCP_POST_HEADERS = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };

/**
 * Serves test actors with `expose_mcp` on loopback for the calling test file: each is closed and
 * shut down after its test.
 * @returns what serves one, from `createTestActor` options, and resolves with its base URL
 */
export function mcpActorsForThisFile(): (options?: Partial<CreateActorAppOptions>) => Promise<string> {
  let served: ServeHandle | undefined;
  let stop: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await served?.close();
    await stop?.();
    served = undefined;
    stop = undefined;
  });
  return async (options = {}) => {
    const app = await createTestActor({ definition: mcpTestDefinition, ...options });
    stop = () => app.actor.shutdown({ graceMs: 2_000 });
    served = await serveOnLoopback(app);
    return served.url;
  };
}
