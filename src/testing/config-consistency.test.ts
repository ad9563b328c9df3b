import { describe, expect, it } from 'vitest';
import { buildPlatformConfig } from '../config/emit/build-platform-config.js';
import { defaultActorFeatures, type ActorDefinition } from '../core/actor-definition.js';
import { statsPanel } from '../surfaces/panel/stats-panel.js';
import { panelRouter } from '../surfaces/panel/panel-router.js';
import { configDifferences, makeConfigConsistencyTests } from './config-consistency.js';
import { createTestActor, testActorDefinition } from './create-test-actor.js';

const everything: ActorDefinition = {
  ...testActorDefinition,
  features: { ...defaultActorFeatures, includePanel: true, fleetMesh: true, integrationType: 'n8n' },
  panels: [statsPanel()],
  peerReads: [{ path: '/lookup/:topic', summary: 'Lookup' }],
};
const env = { MESH_KEY: 'mesh-key-0123456789abcdef', WORKFLOW_BASE_URL: 'http://127.0.0.1:9' };
const peerReads = { '/lookup/:topic': () => ({}) };
const emitted = (definition: ActorDefinition) => buildPlatformConfig({ definition, packageJson: {} });

describe('configDifferences', () => {
  it.each([
    ['the defaults', testActorDefinition],
    ['every template option on', everything],
  ])('finds none between an actor and the configuration emitted from its definition: %s', async (_name, definition) => {
    const app = await createTestActor({ definition, env, peerReads });
    expect(await configDifferences(app, emitted(definition))).toEqual([]);
  });

  it('names each route and panel on one side only', async () => {
    const app = await createTestActor({ definition: everything, env, peerReads });
    const config = emitted(everything);
    const tampered = {
      ...config,
      contract: {
        ...config.contract,
        endpoints: [
          ...config.contract.endpoints.filter((endpoint) => !endpoint.path.includes('lookup')),
          { method: 'GET', path: '/extra', presence: 'conditional' },
        ],
      },
      panels: [{ slug: 'ghost', title: 'Ghost' }],
    };
    expect(await configDifferences(app, tampered)).toEqual([
      'declared in contract.endpoints but not served: GET /extra',
      'served but not declared in contract.endpoints: GET /api/test/lookup/{topic}',
      'declared in panels but not served: ghost',
      'served but not declared in panels: stats',
    ]);
  });

  it('catches a panel mounted by hand that the definition does not declare', async () => {
    const definition = { ...testActorDefinition, features: { ...defaultActorFeatures, includePanel: true } };
    const app = await createTestActor({ definition, routers: [panelRouter({ panels: [statsPanel()] })] });
    expect(await configDifferences(app, emitted(definition))).toEqual(['served but not declared in panels: stats']);
  });
});

describe('makeConfigConsistencyTests', () => {
  it('registers one test that fails with the differences', async () => {
    const tests: { name: string; body: () => Promise<void> }[] = [];
    const registrar = {
      describe: (_name: string, body: () => void) => body(),
      it: (name: string, body: () => Promise<void>) => void tests.push({ name, body }),
    };
    makeConfigConsistencyTests(
      () => createTestActor({ definition: everything, env, peerReads }),
      emitted(testActorDefinition),
      registrar,
    );
    expect(tests.map((test) => test.name)).toEqual([
      'serves exactly the routes and panels src/platform/config.json declares',
    ]);
    await expect(tests[0]!.body()).rejects.toThrow(
      /the actor and its configuration disagree:\n {2}- served but not declared in contract.endpoints: GET \/panel\/\{slug\}/,
    );
    makeConfigConsistencyTests(
      () => createTestActor({ definition: everything, env, peerReads }),
      emitted(everything),
      registrar,
    );
    await expect(tests[1]!.body()).resolves.toBeUndefined();
  });
});
