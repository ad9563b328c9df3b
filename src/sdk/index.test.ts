import { describe, expect, it } from 'vitest';
import * as sdk from './index.js';

describe('actorkit/sdk', () => {
  it('exports exactly this list (a change here is a public API change)', () => {
    expect(Object.keys(sdk).sort()).toEqual([
      'ACTOR_PATHS',
      'ActorTool',
      'DEPLOYMENT_DEFAULTS',
      'DomainClient',
      'DomainClientError',
      'EXPOSABLE_OPERATIONS',
      'EmitError',
      'MANAGED_BY_VALUES',
      'MCP_EDGE_OPERATION',
      'McpServerConfig',
      'McpServers',
      'McpToolSource',
      'PLATFORM_ANNOTATION_KEYS',
      'PLATFORM_CONFIG_SCHEMA_VERSION',
      'PLATFORM_RULES',
      'PLATFORM_RULE_RANGE',
      'PLATFORM_SCHEMA',
      'PLATFORM_SCHEMA_ID',
      'PLATFORM_WIDGET_TYPES',
      'SAFE_CALL_FAILED_EVENT',
      'SAFE_CALL_TIMEOUT_MS',
      'SyncRunUnsupportedError',
      'TEMPLATE_SECTIONS',
      'TOOL_NAME_PATTERN',
      'ToolRegistry',
      'buildDefaultRegistry',
      'buildPlatformConfig',
      'clientEventPrefix',
      'contractEndpoints',
      'defineActorSections',
      'emitPlatformConfig',
      'isBinaryOnPath',
      'loadActorSource',
      'mergeSections',
      'parseMcpServers',
      'platformField',
      'ruleLabel',
      'safeCall',
      'schemaProblems',
      'secretSettingKeys',
      'serializePlatformConfig',
      'settingFields',
      'settingsJsonSchema',
      'validatePlatformConfig',
      'withGeneratedSection',
    ]);
  });

  it('uses every annotation key in the platform schema, and the schema id is versioned', () => {
    const fieldSchema = (sdk.PLATFORM_SCHEMA.$defs as Record<string, { properties: Record<string, unknown> }>)
      .settingField;
    for (const key of Object.values(sdk.PLATFORM_ANNOTATION_KEYS)) expect(fieldSchema?.properties).toHaveProperty(key);
    expect(sdk.PLATFORM_SCHEMA_ID).toBe('https://actorkit.dev/platform-schema/v1/actor-config.schema.json');
    expect(sdk.PLATFORM_SCHEMA.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
  });
});
