export type {
  IdempotencyRecord,
  InvocationRecord,
  StatsSnapshot,
  Store,
  StoredMessage,
  StoredOAuthState,
  StoredOAuthToken,
} from './store.js';
export { emptyStats } from './store.js';
export { MemoryStore } from './memory-store.js';
export { DEFAULT_DATA_DIR, openStore, type OpenStoreOptions } from './open-store.js';
export { DatabaseUrlError, parseDatabaseUrl, redactDatabaseUrl, type DatabaseTarget } from './database-url.js';
export { InvocationBuffer, type InvocationBufferOptions } from './invocation-buffer.js';
export { DatabaseMonitor, type DatabaseMonitorOptions, type DatabaseStatus } from './database-monitor.js';
