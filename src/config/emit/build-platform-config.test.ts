import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { defaultActorFeatures, type ActorDefinition, type ActorFeatures } from '../../core/actor-definition.js';
import { platformField } from '../../sdk/platform-field/index.js';
import { TEMPLATE_SECTIONS } from '../sections/template-sections.js';
import { settingsJsonSchema } from '../settings-json-schema.js';
import { validatePlatformConfig } from '../validate/validate-platform-config.js';
import { buildPlatformConfig, type PlatformConfigSource } from './build-platform-config.js';
import { serializePlatformConfig } from './emit-platform-config.js';

const Settings = v.object({
  llm_model: v.optional(
    v.pipe(v.string(), platformField('model', { managedBy: 'platform', widget: 'text', order: 1 })),
    'offline',
  ),
  temperature: v.optional(
    v.pipe(v.number(), v.minValue(0), v.maxValue(2), platformField('model', { widget: 'slider', order: 2 })),
    0.7,
  ),
  llm_api_key: v.optional(v.pipe(v.string(), platformField('credentials', { widget: 'password', secret: true }))),
});

function definition(
  overrides: Partial<ActorDefinition> & Record<string, unknown> = {},
): PlatformConfigSource['definition'] {
  return {
    metadata: {
      name: 'Hello',
      slug: 'hello-actor',
      version: '0.1.0',
      description: 'Says hello.',
      domain: 'hello',
      tags: ['demo'],
    },
    features: defaultActorFeatures,
    settings: Settings,
    sections: [],
    ...overrides,
  };
}

const packageJson = { actorkit: { deployment: { image_repo: 'ghcr.io/acme/hello-actor' } } };
const withFeatures = (features: Partial<ActorFeatures>) =>
  buildPlatformConfig({ definition: definition({ features: { ...defaultActorFeatures, ...features } }), packageJson });

describe('buildPlatformConfig', () => {
  it('emits exactly the JSON Schema that settingsJsonSchema gives GET /settings/schema', () => {
    const config = buildPlatformConfig({ definition: definition(), packageJson });
    expect(config.settings).toEqual(settingsJsonSchema(Settings));
    expect(JSON.stringify(config.settings)).toBe(JSON.stringify(settingsJsonSchema(Settings)));
  });

  it('bakes no default of a secret, exactly as the served settings schema', () => {
    const WithSecretDefault = v.object({
      ...Settings.entries,
      mesh_key: v.optional(v.pipe(v.string(), platformField('credentials', { secret: true })), 'do-not-bake'),
    });
    const config = buildPlatformConfig({ definition: definition({ settings: WithSecretDefault }), packageJson });
    const served = settingsJsonSchema(WithSecretDefault);
    expect(served.properties?.mesh_key).toMatchObject({ writeOnly: true });
    expect(served.properties?.mesh_key).not.toHaveProperty('default');
    expect(config.settings).toEqual(served);
    expect(serializePlatformConfig(config)).not.toContain('do-not-bake');
  });

  it('fills the deployment defaults and derives readiness_path from the probe option', () => {
    const config = withFeatures({});
    expect(config.deployment).toEqual({
      image_repo: 'ghcr.io/acme/hello-actor',
      port: 8080,
      health_path: '/health',
      readiness_path: '/ready',
      metrics_path: '/metrics',
      resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '500m', memory: '512Mi' } },
      replicas: { min: 1, max: 1 },
      env: { ACTOR_PLATFORM: 'true' },
    });
    expect(withFeatures({ declareReadinessProbe: false }).deployment.readiness_path).toBeNull();
    expect(validatePlatformConfig(config).problems).toEqual([]);
  });

  it('keeps the author’s deployment values as written, forces ACTOR_PLATFORM and orders keys stably', () => {
    const config = buildPlatformConfig({
      definition: definition(),
      packageJson: {
        actorkit: {
          deployment: {
            zeta: 1,
            env: { ZED: 'z', ACTOR_PLATFORM: 'false', ALPHA: 'a' },
            resources: { limits: { memory: '1Gi' } },
            port: 'eighty',
            image_repo: 'ghcr.io/acme/hello-actor',
          },
        },
      },
    });
    expect(Object.keys(config.deployment)).toEqual([
      'image_repo',
      'port',
      'health_path',
      'readiness_path',
      'metrics_path',
      'resources',
      'replicas',
      'env',
      'zeta',
    ]);
    expect(config.deployment.env).toEqual({ ACTOR_PLATFORM: 'true', ALPHA: 'a', ZED: 'z' });
    expect(Object.keys(config.deployment.env)).toEqual(['ACTOR_PLATFORM', 'ALPHA', 'ZED']);
    expect(config.deployment.resources.limits).toEqual({ cpu: '500m', memory: '1Gi' });
    expect(validatePlatformConfig(config).problems.map(({ rule, pointer }) => `${rule} ${pointer}`)).toEqual([
      'schema /deployment/port',
      'schema /deployment/zeta',
    ]);
  });

  it('leaves image_repo out when package.json has none, so validation names it', () => {
    const config = buildPlatformConfig({ definition: definition(), packageJson: {} });
    expect(validatePlatformConfig(config).problems).toEqual([
      { rule: 'schema', pointer: '/deployment', message: "missing required property 'image_repo'" },
    ]);
  });

  it('lists the mounted routes: required, recommended, always present, then those the options turn on', () => {
    const paths = (features: Partial<ActorFeatures>) =>
      withFeatures(features).contract.endpoints.map((endpoint) => `${endpoint.method} ${endpoint.path}`);
    const base = paths({});
    expect(new Set(base.slice(0, 4))).toEqual(
      new Set(['POST /agent/invoke', 'GET /health', 'GET /ready', 'GET /metrics']),
    );
    expect(base).toContain('GET /api/actor/platform-config');
    expect(base).not.toContain('GET /api/actor/configuration-schema');
    expect(
      base.some((path) => path.includes('/panel/') || path.includes('/workflow/') || path.includes('_peer_check')),
    ).toBe(false);
    expect(paths({ includePanel: true }).slice(-3)).toEqual([
      'GET /panel/{slug}',
      'GET /panel/{slug}/data',
      'POST /panel/{slug}/action',
    ]);
    expect(paths({ fleetMesh: true }).at(-1)).toBe('GET /api/hello/_peer_check');
    const peerReads = [{ path: '/lookup/:topic', summary: 'Lookup' }];
    const mesh = buildPlatformConfig({
      definition: definition({ features: { ...defaultActorFeatures, fleetMesh: true }, peerReads }),
      packageJson,
    });
    expect(mesh.contract.endpoints.slice(-2)).toEqual([
      { method: 'GET', path: '/api/hello/_peer_check', presence: 'conditional' },
      { method: 'GET', path: '/api/hello/lookup/{topic}', presence: 'conditional' },
    ]);
    const meshOff = buildPlatformConfig({ definition: definition({ peerReads }), packageJson });
    expect(meshOff.contract.endpoints.some((endpoint) => endpoint.path.startsWith('/api/hello/'))).toBe(false);
    expect(paths({ integrationType: 'n8n' }).at(-1)).toBe('ANY /workflow/*');
    expect(base).not.toContain('ANY /mcp');
    expect(paths({ exposeMcp: true }).at(-1)).toBe('ANY /mcp');
  });

  it('maps the template options to snake_case and follows them in external_api', () => {
    const config = withFeatures({ includePanel: true, exposeExternalApi: false });
    expect(config.features).toEqual({
      declare_readiness_probe: true,
      include_panel: true,
      fleet_mesh: false,
      integration_type: 'none',
      platform_expose_external_api: false,
    });
    expect(config.external_api).toEqual({ enabled: false, operations: [] });
    expect(withFeatures({}).external_api).toEqual({ enabled: true, operations: ['chat', 'status', 'health'] });
    const narrowed = buildPlatformConfig({
      definition: definition(),
      packageJson: { actorkit: { ...packageJson.actorkit, external_api: { operations: ['chat'] } } },
    });
    expect(narrowed.external_api.operations).toEqual(['chat']);
  });

  it('puts the template sections first and copies only the declared fields of panels, OAuth providers and connectors', () => {
    const panel = { slug: 'overview', title: 'Overview', render: () => '<p>' };
    const provider = { provider: 'google', scopes: ['openid'], clientSecret: 'hunter2' };
    const connector = { id: 'google_drive', title: 'Drive', token: 'x' };
    const config = buildPlatformConfig({
      definition: definition({
        features: { ...defaultActorFeatures, includePanel: true },
        sections: [{ id: 'hello', title: 'Hello' }],
        panels: [panel],
        oauth: [provider],
        connectors: [connector],
      }),
      packageJson,
    });
    expect(config.sections.map((section) => section.id)).toEqual([
      ...TEMPLATE_SECTIONS.map((section) => section.id),
      'hello',
    ]);
    expect(config.panels).toEqual([{ slug: 'overview', title: 'Overview' }]);
    expect(config.oauth).toEqual([{ provider: 'google', scopes: ['openid'] }]);
    const panelOff = buildPlatformConfig({ definition: definition({ panels: [panel] }), packageJson });
    expect(panelOff.panels).toEqual([]);
    expect(config.connectors).toEqual([{ id: 'google_drive', title: 'Drive' }]);
    expect(serializePlatformConfig(config)).not.toContain('hunter2');
  });

  it('serialises with two-space indent and a trailing newline', () => {
    const text = serializePlatformConfig(withFeatures({}));
    expect(text.startsWith('{\n  "schema_version": "1.0",\n  "actor": {\n    "name": "Hello",')).toBe(true);
    expect(text.endsWith('\n  "connectors": []\n}\n')).toBe(true);
  });
});
