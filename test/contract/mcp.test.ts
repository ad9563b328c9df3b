import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe } from 'vitest';
import { mcpContractSuite } from './mcp-contract.js';
import { checkRuntime, RUNTIMES_UNDER_TEST, type RuntimeProcess } from './runtimes-under-test.js';
import { spawnActor, type SpawnedActor, waitUntilReady } from './spawn-actor.js';

/** The built mesh-actor example (rendered with expose_mcp on) under `runtime`, instead of hello-actor. */
function meshActorUnder(runtime: RuntimeProcess): RuntimeProcess {
  const entry = runtime.args.at(-1) ?? '';
  const meshEntry = fileURLToPath(
    new URL(`../../dist/examples/mesh-actor/src/${entry.split('/').at(-1) ?? ''}`, import.meta.url),
  );
  return { ...runtime, args: [...runtime.args.slice(0, -1), meshEntry] };
}

// The MCP contract, with the official SDK client, against the built mesh-actor listening for real, under every runtime.
for (const runtime of RUNTIMES_UNDER_TEST) {
  describe(`MCP server on ${runtime.name}`, () => {
    let actor: SpawnedActor | undefined;

    beforeAll(async () => {
      const mesh = meshActorUnder(runtime);
      console.log(`[mcp] ${runtime.name} ${checkRuntime(mesh)}`);
      actor = await spawnActor(mesh, { MESH_KEY: 'mcp-contract-mesh-key-0123456789', LLM_PROVIDER: 'offline' });
      await waitUntilReady(actor);
    });

    afterAll(async () => {
      await actor?.dispose();
    });

    mcpContractSuite(() => {
      if (actor === undefined) throw new Error(`${runtime.name} did not start`);
      return { baseUrl: actor.baseUrl, domainTool: 'weather_lookup' };
    });
  });
}
