import type { ActorDefinition } from '../../core/actor-definition.js';
import { TEMPLATE_SECTIONS } from '../sections/template-sections.js';
import { mergeSections } from '../sections/merge-sections.js';
import { EXPOSABLE_OPERATIONS } from '../platform-annotations.js';
import { PLATFORM_CONFIG_SCHEMA_VERSION, type PlatformConfig } from '../platform-config.js';
import { secretSettingKeys, settingsJsonSchema, type JsonSchemaDocument } from '../settings-json-schema.js';
import { contractEndpoints } from './contract-endpoints.js';
import { deploymentBlock } from './deployment-block.js';

/** The parts of an actor's `package.json` the emitter reads. */
export interface ActorPackageJson {
  readonly name?: string;
  readonly version?: string;
  readonly actorkit?: {
    /** The `deployment` block; see `DEPLOYMENT_DEFAULTS` for what may be left out. */
    readonly deployment?: Record<string, unknown>;
    /** Narrows what the public edge exposes; default all of `chat`, `status`, `health`. */
    readonly external_api?: { readonly operations?: readonly string[] };
  };
}

/** What `buildPlatformConfig` reads: the actor's definition (with optional declarations) and its `package.json`. */
export interface PlatformConfigSource {
  readonly definition: ActorDefinition;
  readonly packageJson: ActorPackageJson;
}

/**
 * Builds the canonical configuration (DESIGN §7) of an actor in memory, from the same definition
 * `createActorApp` mounts from: the endpoints and panels are those it serves with these options.
 * Keys come out in a fixed order so the serialised file is deterministic; secret settings lose
 * their `default`.
 * @param source the actor's definition and `package.json`
 * @example
 * const config = buildPlatformConfig({ definition: actor, packageJson });
 */
export function buildPlatformConfig(source: PlatformConfigSource): PlatformConfig {
  const { definition, packageJson } = source;
  const { metadata, features } = definition;
  const exposed = features.exposeExternalApi;
  return {
    schema_version: PLATFORM_CONFIG_SCHEMA_VERSION,
    actor: pickDefined(metadata, ['name', 'slug', 'version', 'description', 'domain', 'tags', 'icon']),
    contract: { topic: 'actor', version: '1.0', endpoints: contractEndpoints(definition) },
    deployment: deploymentBlock(packageJson.actorkit?.deployment, features) as unknown as PlatformConfig['deployment'],
    features: {
      declare_readiness_probe: features.declareReadinessProbe,
      include_panel: features.includePanel,
      fleet_mesh: features.fleetMesh,
      integration_type: features.integrationType,
      platform_expose_external_api: exposed,
    },
    external_api: {
      enabled: exposed,
      operations: exposed ? [...(packageJson.actorkit?.external_api?.operations ?? EXPOSABLE_OPERATIONS)] : [],
    },
    sections: mergeSections(TEMPLATE_SECTIONS, definition.sections).map((section) =>
      pickDefined(section, ['id', 'title', 'description', 'order']),
    ),
    settings: emittedSettings(settingsJsonSchema(definition.settings)),
    panels: (features.includePanel ? (definition.panels ?? []) : []).map((panel) =>
      pickDefined(panel, ['slug', 'title', 'description']),
    ),
    oauth: (definition.oauth ?? []).map((provider) => pickDefined(provider, ['provider', 'title', 'scopes'])),
    connectors: (definition.connectors ?? []).map((connector) =>
      pickDefined(connector, ['id', 'title', 'description']),
    ),
  };
}

/**
 * Copies the named keys that are defined, in the order named: a declaration may carry more
 * (handlers, client secrets), and only what the configuration describes gets through.
 */
function pickDefined<T extends object, K extends keyof T>(object: T, keys: readonly K[]): Pick<T, K> {
  const picked: Partial<Pick<T, K>> = {};
  for (const key of keys) if (object[key] !== undefined) picked[key] = object[key];
  return picked as Pick<T, K>;
}

/** The settings JSON Schema minus the `default` of every secret field, so no secret is baked into the file. */
function emittedSettings(schema: JsonSchemaDocument): JsonSchemaDocument {
  const secrets = new Set(secretSettingKeys(schema));
  if (secrets.size === 0 || schema.properties === undefined) return schema;
  const properties = Object.fromEntries(
    Object.entries(schema.properties).map(([key, property]) => {
      if (!secrets.has(key)) return [key, property];
      const { default: _dropped, ...rest } = property;
      return [key, rest];
    }),
  );
  return { ...schema, properties };
}
