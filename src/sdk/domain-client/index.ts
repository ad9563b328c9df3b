export {
  DomainClient,
  clientEventPrefix,
  type DomainClientOptions,
  type DomainHealth,
  type DomainSettingsSource,
} from './domain-client.js';
export { DomainClientError, type DomainClientErrorOptions } from './domain-client-error.js';
export { isBinaryOnPath } from './find-binary.js';
export { SAFE_CALL_FAILED_EVENT, SAFE_CALL_TIMEOUT_MS, safeCall, type SafeCallOptions } from './safe-call.js';
