import type { RecordOutcome } from '../store/invocation-buffer.js';
import type { InvocationRecord, StatsSnapshot } from '../store/store.js';

/** Records finished invokes (and the history they carry); never loses a count, even while the database is down. */
export interface StatsRecorder {
  record(record: InvocationRecord): Promise<RecordOutcome>;
  flush(): Promise<void>;
  readStats(tenantId?: string): Promise<StatsSnapshot>;
  readonly pending: number;
}
