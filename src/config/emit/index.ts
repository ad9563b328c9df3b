export { buildPlatformConfig, type ActorPackageJson, type PlatformConfigSource } from './build-platform-config.js';
export { contractEndpoints } from './contract-endpoints.js';
export { DEPLOYMENT_DEFAULTS } from './deployment-block.js';
export {
  emitPlatformConfig,
  type ConfigDifference,
  type EmitOptions,
  type EmitResult,
} from './emit-platform-config.js';
export { EmitError, type EmitErrorCode } from './emit-error.js';
export { ACTOR_PATHS, loadActorSource } from './load-actor-source.js';
export { serializePlatformConfig } from './serialize-platform-config.js';
