import { describe, expect, it } from 'vitest';
import { defaultActorFeatures } from '../../core/actor-definition.js';
import { ruleHDeployment } from '../validate/rules/rule-h-deployment.js';
import { deploymentBlock } from './deployment-block.js';

describe('the variables a surface needs, in deployment.env', () => {
  it('lists MESH_KEY as a secret placeholder with fleet_mesh and WORKFLOW_BASE_URL with n8n, nothing otherwise', () => {
    expect(deploymentBlock({}, defaultActorFeatures).env).toEqual({ ACTOR_PLATFORM: 'true' });
    expect(deploymentBlock({}, { ...defaultActorFeatures, fleetMesh: true, integrationType: 'n8n' }).env).toEqual({
      ACTOR_PLATFORM: 'true',
      MESH_KEY: '${secret:MESH_KEY}',
      WORKFLOW_BASE_URL: '${WORKFLOW_BASE_URL}',
    });
  });

  it('puts them in the deployment block, sorted, under a value the author set', () => {
    const features = { ...defaultActorFeatures, fleetMesh: true, integrationType: 'n8n' as const };
    expect(deploymentBlock({}, features).env).toEqual({
      ACTOR_PLATFORM: 'true',
      MESH_KEY: '${secret:MESH_KEY}',
      WORKFLOW_BASE_URL: '${WORKFLOW_BASE_URL}',
    });
    expect(Object.keys(deploymentBlock({}, features).env as object)).toEqual([
      'ACTOR_PLATFORM',
      'MESH_KEY',
      'WORKFLOW_BASE_URL',
    ]);
    expect(deploymentBlock({ env: { WORKFLOW_BASE_URL: 'http://n8n:5678' } }, features).env).toMatchObject({
      WORKFLOW_BASE_URL: 'http://n8n:5678',
    });
  });

  it('passes rule H as a placeholder, while a real MESH_KEY value in config.json is still refused', () => {
    const config = (env: Record<string, string>) => ({
      deployment: { health_path: '/health', readiness_path: null, env: { ACTOR_PLATFORM: 'true', ...env } },
      features: { declare_readiness_probe: false },
    });
    expect(ruleHDeployment.check(config({ MESH_KEY: '${secret:MESH_KEY}' }))).toEqual([]);
    for (const value of ['k-123', '${secret:OTHER_KEY}', '${MESH_KEY}']) {
      expect(
        ruleHDeployment.check(config({ MESH_KEY: value })).map((problem) => problem.pointer),
        value,
      ).toEqual(['/deployment/env/MESH_KEY']);
    }
  });
});
