import type { RecordOutcome } from '../store/invocation-buffer.js';
import type { InvocationRecord, StatsSnapshot } from '../store/store.js';

/** Records finished invokes (and the history they carry); never loses a count, even while the database is down. */
export interface StatsRecorder {
  record(record: InvocationRecord): Promise<RecordOutcome>;
  flush(): Promise<void>;
  /** Hands the records still waiting to `keep` (a file, when `flush()` failed on shutdown) and forgets them once it resolved. */
  spillPending(keep: (records: readonly InvocationRecord[]) => Promise<void>): Promise<number>;
  readStats(tenantId?: string): Promise<StatsSnapshot>;
  readonly pending: number;
}
