import { describe as vitestDescribe, it as vitestIt } from 'vitest';
import type { ActorApp } from '../app/create-actor-app.js';
import { configDifferences } from './config-consistency.js';
import type { ContractTestRegistrar } from './make-contract-tests.js';

/**
 * Registers one test that builds the actor and fails on any difference between the routes and
 * panels it serves and those its `src/platform/config.json` declares (see `configDifferences`),
 * so the platform relays exactly what the actor mounts. Build the app with the environment its
 * template options need (`MESH_KEY`, `WORKFLOW_BASE_URL`, OAuth variables) and without API keys.
 * @param app a function returning the actor (started or not)
 * @param platformConfig the parsed `src/platform/config.json`
 * @example
 * makeConfigConsistencyTests(() => createApp(testEnv), platformConfig);
 */
export function makeConfigConsistencyTests(
  app: () => ActorApp | Promise<ActorApp>,
  platformConfig: unknown,
  registrar: Pick<ContractTestRegistrar, 'describe' | 'it'> = { describe: vitestDescribe, it: vitestIt },
): void {
  registrar.describe('platform configuration and served surface', () => {
    registrar.it('serves exactly the routes and panels src/platform/config.json declares', async () => {
      const differences = await configDifferences(await app(), platformConfig);
      if (differences.length > 0)
        throw new Error(
          `the actor and its configuration disagree:\n${differences.map((line) => `  - ${line}`).join('\n')}`,
        );
    });
  });
}
