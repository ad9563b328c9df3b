/**
 * `actorkit/sdk`: what an actor's author writes with — settings annotations and sections, the
 * platform configuration emitter and validator, and domain client helpers.
 * @module actorkit/sdk
 */

// Settings annotations
export {
  platformField,
  type JsonValue,
  type PlatformDisplay,
  type PlatformFieldMetadata,
  type PlatformFieldOption,
  type PlatformFieldOptions,
  type PlatformShowIf,
  type PlatformValidation,
} from './platform-field/index.js';
export {
  EXPOSABLE_OPERATIONS,
  MANAGED_BY_VALUES,
  MCP_EDGE_OPERATION,
  PLATFORM_ANNOTATION_KEYS,
  PLATFORM_WIDGET_TYPES,
  type ExposableOperation,
  type ManagedBy,
  type PlatformAnnotationKey,
  type PlatformWidget,
} from '../config/platform-annotations.js';
export { secretSettingKeys, settingsJsonSchema, type JsonSchemaDocument } from '../config/settings-json-schema.js';

// Sections
export { defineActorSections } from './sections/index.js';
export { mergeSections } from '../config/sections/merge-sections.js';
export { TEMPLATE_SECTIONS } from '../config/sections/template-sections.js';

// The platform configuration: emitter
export {
  buildPlatformConfig,
  type ActorPackageJson,
  type PlatformConfigSource,
} from '../config/emit/build-platform-config.js';
export { contractEndpoints } from '../config/emit/contract-endpoints.js';
export { DEPLOYMENT_DEFAULTS } from '../config/emit/deployment-block.js';
export {
  emitPlatformConfig,
  serializePlatformConfig,
  type ConfigDifference,
  type EmitOptions,
  type EmitResult,
} from '../config/emit/emit-platform-config.js';
export { EmitError, type EmitErrorCode } from '../config/emit/emit-error.js';
export { ACTOR_PATHS, loadActorSource } from '../config/emit/load-actor-source.js';
export {
  PLATFORM_CONFIG_SCHEMA_VERSION,
  type ConnectorDeclaration,
  type ContractEndpoint,
  type EndpointPresence,
  type OAuthProviderDeclaration,
  type PanelDeclaration,
  type PlatformConfig,
  type PlatformDeclarations,
  type PlatformDeployment,
  type PlatformFeatures,
} from '../config/platform-config.js';

// The platform configuration: schema and tuning rules
export { PLATFORM_RULES } from '../config/validate/platform-rules.js';
export { PLATFORM_RULE_RANGE } from '../config/validate/platform-rule-range.js';
export { ruleLabel } from '../config/validate/rule-label.js';
export { schemaProblems } from '../config/validate/schema-problems.js';
export { settingFields, type SettingField } from '../config/validate/rules/setting-fields.js';
export type { PlatformRule, RuleFinding } from '../config/validate/platform-rule.js';
export {
  PLATFORM_SCHEMA,
  PLATFORM_SCHEMA_ID,
  validatePlatformConfig,
} from '../config/validate/validate-platform-config.js';
export type { ProblemRule, ValidationProblem, ValidationResult } from '../config/validate/validation-problem.js';

// README.md sections written from the code
export { withGeneratedSection, type GeneratedSectionMarkers } from '../core/generated-section.js';

// Domain clients
export {
  DomainClient,
  clientEventPrefix,
  isBinaryOnPath,
  type DomainClientOptions,
  type DomainHealth,
  type DomainSettingsSource,
} from './domain-client/domain-client.js';
export { DomainClientError, type DomainClientErrorOptions } from './domain-client/domain-client-error.js';
export {
  SAFE_CALL_FAILED_EVENT,
  SAFE_CALL_TIMEOUT_MS,
  safeCall,
  type SafeCallOptions,
} from './domain-client/safe-call.js';

// Tools and the tool registry (domain and MCP tools)
export {
  ActorTool,
  SyncRunUnsupportedError,
  TOOL_NAME_PATTERN,
  type ActorToolOptions,
  type ToolArgsResult,
  type ToolRunContext,
} from '../agent/actor-tool.js';
export {
  ToolRegistry,
  buildDefaultRegistry,
  type ToolRegistryOptions,
  type ToolSourceInput,
} from '../agent/tool-registry.js';
export { McpToolSource, type McpToolSourceOptions } from '../agent/mcp-tool-source.js';
export { McpServerConfig, McpServers, parseMcpServers } from '../agent/mcp-server-config.js';
