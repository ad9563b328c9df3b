/**
 * `actorkit/sdk`: what an actor's author writes with — settings annotations and sections, the
 * platform configuration emitter and validator, and domain client helpers.
 * @module
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
export { TEMPLATE_SECTIONS, defineActorSections, mergeSections } from './sections/index.js';

// The platform configuration: emitter
export {
  ACTOR_PATHS,
  DEPLOYMENT_DEFAULTS,
  EmitError,
  buildPlatformConfig,
  loadActorSource,
  contractEndpoints,
  emitPlatformConfig,
  serializePlatformConfig,
  type ActorPackageJson,
  type ConfigDifference,
  type EmitErrorCode,
  type EmitOptions,
  type EmitResult,
  type PlatformConfigSource,
} from '../config/emit/index.js';
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
export {
  PLATFORM_RULES,
  PLATFORM_RULE_RANGE,
  PLATFORM_SCHEMA,
  PLATFORM_SCHEMA_ID,
  ruleLabel,
  schemaProblems,
  settingFields,
  validatePlatformConfig,
  type PlatformRule,
  type ProblemRule,
  type RuleFinding,
  type SettingField,
  type ValidationProblem,
  type ValidationResult,
} from '../config/validate/index.js';

// README.md sections written from the code
export { withGeneratedSection, type GeneratedSectionMarkers } from '../core/generated-section.js';

// Domain clients
export {
  DomainClient,
  DomainClientError,
  SAFE_CALL_FAILED_EVENT,
  SAFE_CALL_TIMEOUT_MS,
  clientEventPrefix,
  isBinaryOnPath,
  safeCall,
  type DomainClientErrorOptions,
  type DomainClientOptions,
  type DomainSettingsSource,
  type DomainHealth,
  type SafeCallOptions,
} from './domain-client/index.js';

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
