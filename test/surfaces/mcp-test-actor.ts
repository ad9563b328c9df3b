import * as v from 'valibot';
import { ActorTool } from '../../src/agent/actor-tool.js';
import { defaultActorFeatures, type ActorDefinition } from '../../src/core/actor-definition.js';
import type { CreateActorAppOptions } from '../../src/app/create-actor-app-options.js';
import { testActorDefinition } from '../../src/testing/create-test-actor.js';
import { testActorsForThisFile } from './loopback.js';

/** The test actor (src/testing) with `expose_mcp` on. */
export const mcpTestDefinition: ActorDefinition = {
  ...testActorDefinition,
  features: { ...defaultActorFeatures, exposeMcp: true },
};

/** A read-only tool (the one `/mcp` offers, and AG-UI's tests call): `{topic}` → `{topic, text: "about <topic>"}`. */
export const lookupTool = new ActorTool({
  name: 'test_lookup',
  description: 'Looks a topic up',
  readOnly: true,
  argsSchema: v.object({ topic: v.pipe(v.string(), v.minLength(1)) }),
  run: ({ topic }) => ({ topic, text: `about ${topic}` }),
});

/** The headers a raw Streamable HTTP POST to `/mcp` needs. */
export const MCP_POST_HEADERS = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };

/** Serves test actors with `expose_mcp` on loopback for the calling test file (`testActorsForThisFile`). */
export function mcpActorsForThisFile(): (options?: Partial<CreateActorAppOptions>) => Promise<string> {
  return testActorsForThisFile({ definition: mcpTestDefinition });
}
