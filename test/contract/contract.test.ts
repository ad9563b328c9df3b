import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actorContractSuite } from './actor-contract.js';
import { checkRuntime, RUNTIMES_UNDER_TEST } from './runtimes-under-test.js';
import { spawnActor, type SpawnedActor, waitForLogEvent, waitUntilReady } from './spawn-actor.js';

// The same contract, against the built example actor listening for real, under every runtime.
for (const runtime of RUNTIMES_UNDER_TEST) {
  describe(`HTTP contract on ${runtime.name}`, () => {
    let actor: SpawnedActor | undefined;

    beforeAll(async () => {
      const version = checkRuntime(runtime);
      console.log(`[contract] ${runtime.name} ${version}`);
      actor = await spawnActor(runtime);
      await waitUntilReady(actor);
    });

    afterAll(async () => {
      await actor?.dispose();
    });

    it(`opens SQLite with ${runtime.sqliteDriver}`, async () => {
      if (actor === undefined) throw new Error(`${runtime.name} did not start`);
      const opened = await waitForLogEvent(actor, 'store_opened');
      expect(opened, actor.output()).toMatchObject({ store: 'sqlite', driver: runtime.sqliteDriver });
      expect(actor.output()).not.toMatch(/ExperimentalWarning/);
    });

    actorContractSuite(() => {
      if (actor === undefined) throw new Error(`${runtime.name} did not start`);
      return actor.baseUrl;
    });
  });
}
