import { CompiledQuery, type Insertable, type Kysely, type Selectable, type Transaction } from 'kysely';
import { runIdBefore } from '../core/time-ordered-id.js';
import { RUN_STATES_IN_PROGRESS, type RunState, type RunWrite, type StoredRun, type StoredRunPart } from './store.js';
import type { StoreDatabase } from './store-database.js';
import type { StoreEngine } from './store-migrations.js';

type Db = Kysely<StoreDatabase> | Transaction<StoreDatabase>;
/** One batch of a run's parts, as a write carries it. */
type RunPartBatch = NonNullable<RunWrite['parts']>;
type RunRow = Selectable<StoreDatabase['actorkit_runs']>;
type NewRunRow = Insertable<StoreDatabase['actorkit_runs']>;

/** A stored row as a `StoredRun` (bigint columns arrive as strings from PostgreSQL). */
function runOfRow(row: RunRow): StoredRun {
  const nullableNumber = (value: number | string | null) => (value === null ? null : Number(value));
  return {
    id: row.id,
    tenantId: row.tenant_id,
    sessionId: row.session_id,
    state: row.state as RunState,
    background: Number(row.background) === 1,
    createdAtMs: Number(row.created_at_ms),
    finishedAtMs: nullableNumber(row.finished_at_ms),
    inputTokens: Number(row.input_tokens),
    outputTokens: Number(row.output_tokens),
    reply: row.reply,
    problem: row.problem,
    runner: row.runner,
    leaseExpiresAtMs: nullableNumber(row.lease_expires_at_ms),
    cancelRequested: Number(row.cancel_requested) === 1,
    lastSeq: Number(row.last_seq),
    request: row.request,
    sideEffects: Number(row.side_effects) === 1,
    approvals: row.approvals,
  };
}

/** A `StoredRun` as the row to write. */
function rowOfRun(run: StoredRun): NewRunRow {
  return {
    id: run.id,
    tenant_id: run.tenantId,
    session_id: run.sessionId,
    state: run.state,
    background: run.background ? 1 : 0,
    created_at_ms: run.createdAtMs,
    finished_at_ms: run.finishedAtMs,
    input_tokens: run.inputTokens,
    output_tokens: run.outputTokens,
    reply: run.reply,
    problem: run.problem,
    runner: run.runner,
    lease_expires_at_ms: run.leaseExpiresAtMs,
    cancel_requested: run.cancelRequested ? 1 : 0,
    last_seq: run.lastSeq,
    request: run.request,
    side_effects: run.sideEffects ? 1 : 0,
    approvals: run.approvals,
  };
}

/** The columns of `actorkit_runs`, in the order `writeRunsStatements` binds them (`rowOfRun`'s keys). */
const RUN_COLUMNS = Object.keys(rowOfRun({} as StoredRun)) as (keyof NewRunRow)[];
/** The columns a later write of a run updates (`cancel_requested` stays as any replica set it). */
const UPDATED_COLUMNS = [
  'state',
  'finished_at_ms',
  'input_tokens',
  'output_tokens',
  'reply',
  'problem',
  'runner',
  'lease_expires_at_ms',
  'last_seq',
  'side_effects',
  'approvals',
];
/**
 * The row counts a statement writes: a flush of n runs is cut into chunks of these sizes, so
 * the connection prepares and keeps a handful of texts, not one per flush size (preparing a new
 * text of a few hundred rows every 50 ms, and pushing the turns' own statements out of the
 * statement cache, cost more than the writes).
 */
const CHUNK_SIZES = [64, 16, 4, 1];

/** `items` cut into chunks of `CHUNK_SIZES`, largest first. */
function chunksOf<T>(items: readonly T[]): T[][] {
  const chunks: T[][] = [];
  let from = 0;
  for (const size of CHUNK_SIZES)
    for (; items.length - from >= size; from += size) chunks.push(items.slice(from, from + size));
  return chunks;
}

/** `rows` rows of `columns` placeholders each, as the engine writes them (`?`, or `$1`, `$2`…). */
function valueRows(engine: StoreEngine, rows: number, columns: number): string {
  let next = 0;
  const placeholder = () => (engine === 'postgres' ? `$${(next += 1)}` : '?');
  return Array.from({ length: rows }, () => `(${Array.from({ length: columns }, placeholder).join(', ')})`).join(', ');
}

/**
 * The writer of runs and their part batches, with SQL text made once per row count: the
 * per-flush write of every run of an instance skips Kysely's query building (one statement for
 * the rows, one for the parts). A row is updated only while the stored one is held by the same
 * runner and still in progress; `cancel_requested` is kept once set, whoever writes. A batch is
 * stored only with its row (a runner that lost its run, or writes after its end, adds no parts);
 * a batch from a first part already stored (a write retried after a commit whose answer was lost,
 * the same or longer) adds only its new parts.
 */
export function runsWriter(engine: StoreEngine): (trx: Db, writes: readonly RunWrite[]) => Promise<void> {
  const texts = new Map<string, string>();
  const text = (kind: 'runs' | 'runsReturning' | 'parts', rows: number) => {
    const key = `${kind}${rows}`;
    let found = texts.get(key);
    if (found !== undefined) return found;
    found =
      kind !== 'parts'
        ? `insert into actorkit_runs (${RUN_COLUMNS.join(', ')}) values ${valueRows(engine, rows, RUN_COLUMNS.length)}
on conflict (id) do update set ${UPDATED_COLUMNS.map((column) => `${column} = excluded.${column}`).join(', ')},
request = case when excluded.request <> '' then excluded.request else actorkit_runs.request end
where actorkit_runs.runner = excluded.runner and actorkit_runs.state in (${RUN_STATES_IN_PROGRESS.map((state) => `'${state}'`).join(', ')})${kind === 'runsReturning' ? ' returning id' : ''}`
        : `insert into actorkit_run_parts (run_id, first_seq, last_seq, parts) values ${valueRows(engine, rows, 4)}
on conflict (run_id, first_seq) do nothing returning run_id`;
    texts.set(key, found);
    return found;
  };
  return async (trx, writes) => {
    for (const chunk of chunksOf(writes)) {
      const runValues: unknown[] = [];
      for (const { run } of chunk) runValues.push(...Object.values(rowOfRun(run)));
      const withParts = chunk.filter(({ parts }) => parts !== undefined && parts.parts.length > 0);
      if (withParts.length === 0) {
        // No parts to gate on the rows written (most flushes: runs that ended whole): no rows to return.
        await querySql(trx, text('runs', chunk.length), runValues);
        continue;
      }
      const written = new Set(
        (await querySql<{ id: string }>(trx, text('runsReturning', chunk.length), runValues)).map((row) => row.id),
      );
      const batches = withParts.filter(({ run }) => written.has(run.id)) as (RunWrite & { parts: RunPartBatch })[];
      for (const partChunk of chunksOf(batches)) {
        const partValues: unknown[] = [];
        for (const { run, parts } of partChunk)
          partValues.push(
            run.id,
            parts.firstSeq,
            parts.firstSeq + parts.parts.length - 1,
            `[${parts.parts.join(',')}]`,
          );
        const inserted = new Set(
          (await querySql<{ run_id: string }>(trx, text('parts', partChunk.length), partValues)).map(
            (row) => row.run_id,
          ),
        );
        for (const { run, parts } of partChunk) if (!inserted.has(run.id)) await storeRetriedBatch(trx, run.id, parts);
      }
    }
  };
}

/** Runs SQL text with its parameters in the caller's transaction. */
async function querySql<Row>(trx: Db, text: string, parameters: readonly unknown[]): Promise<Row[]> {
  return (await trx.executeQuery<Row>(CompiledQuery.raw(text, [...parameters]))).rows;
}

/** A batch from a first part already stored: a retry, maybe longer; only its parts after the stored ones are new. */
async function storeRetriedBatch(trx: Db, runId: string, parts: RunPartBatch): Promise<void> {
  const last = await trx
    .selectFrom('actorkit_run_parts')
    .select('last_seq')
    .where('run_id', '=', runId)
    .orderBy('first_seq', 'desc')
    .limit(1)
    .executeTakeFirstOrThrow();
  const stored = Number(last.last_seq) - parts.firstSeq + 1;
  if (stored < parts.parts.length)
    await insertPartBatch(trx, runId, parts.firstSeq + stored, parts.parts.slice(stored));
}

/** Inserts one batch of a run's parts unless a batch from the same first part is stored; resolves undefined then. */
function insertPartBatch(trx: Db, runId: string, firstSeq: number, parts: readonly string[]) {
  return trx
    .insertInto('actorkit_run_parts')
    .values({
      run_id: runId,
      first_seq: firstSeq,
      last_seq: firstSeq + parts.length - 1,
      parts: `[${parts.join(',')}]`,
    })
    .onConflict((conflict) => conflict.columns(['run_id', 'first_seq']).doNothing())
    .returning('first_seq')
    .executeTakeFirst();
}

/** One run, or null. */
export async function readRun(db: Db, id: string): Promise<StoredRun | null> {
  const row = await db.selectFrom('actorkit_runs').selectAll().where('id', '=', id).executeTakeFirst();
  return row === undefined ? null : runOfRow(row);
}

/** A run's parts numbered above `afterSeq`, at most `limit`, from the batches that hold them. */
export async function readRunParts(db: Db, id: string, afterSeq: number, limit: number): Promise<StoredRunPart[]> {
  const batches = await db
    .selectFrom('actorkit_run_parts')
    .select(['first_seq', 'parts'])
    .where('run_id', '=', id)
    .where('last_seq', '>', afterSeq)
    .orderBy('first_seq')
    .execute();
  const found: StoredRunPart[] = [];
  for (const batch of batches) {
    const first = Number(batch.first_seq);
    const parts = JSON.parse(batch.parts) as unknown[];
    for (let index = 0; index < parts.length && found.length < limit; index += 1) {
      const seq = first + index;
      if (seq > afterSeq) found.push({ seq, part: JSON.stringify(parts[index]) });
    }
    if (found.length >= limit) break;
  }
  return found;
}

/** The newest run of a session still in progress. */
export async function readActiveRun(db: Db, tenantId: string, sessionId: string): Promise<StoredRun | null> {
  const row = await db
    .selectFrom('actorkit_runs')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('session_id', '=', sessionId)
    // Matches the partial index of runs in progress (a run in progress has no finish time).
    .where('finished_at_ms', 'is', null)
    .where('state', 'in', RUN_STATES_IN_PROGRESS)
    .orderBy('created_at_ms', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row === undefined ? null : runOfRow(row);
}

/** The tenant's runs, the newest first, of one session when given, older than `beforeId` when given, at most `limit`. */
export async function readTenantRuns(
  db: Db,
  tenantId: string,
  page: { readonly sessionId?: string; readonly beforeId?: string; readonly limit: number },
): Promise<StoredRun[]> {
  let query = db.selectFrom('actorkit_runs').selectAll().where('tenant_id', '=', tenantId);
  if (page.sessionId !== undefined) query = query.where('session_id', '=', page.sessionId);
  if (page.beforeId !== undefined) query = query.where('id', '<', page.beforeId);
  const rows = await query.orderBy('id', 'desc').limit(page.limit).execute();
  return rows.map(runOfRow);
}

/** The tenant's runs awaiting input, the oldest first, at most `limit`. */
export async function readAwaitingRuns(db: Db, tenantId: string, limit: number): Promise<StoredRun[]> {
  const rows = await db
    .selectFrom('actorkit_runs')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    // Matches the partial index of runs in progress (a run in progress has no finish time).
    .where('finished_at_ms', 'is', null)
    .where('state', '=', 'awaiting_input')
    .orderBy('created_at_ms')
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map(runOfRow);
}

/** Marks a run in progress as asked to cancel and returns it. */
export async function requestRunCancel(trx: Db, id: string): Promise<StoredRun | null> {
  await trx
    .updateTable('actorkit_runs')
    .set({ cancel_requested: 1 })
    .where('id', '=', id)
    .where('state', 'in', RUN_STATES_IN_PROGRESS)
    .execute();
  return readRun(trx, id);
}

/** Of `ids`, the runs a cancel was asked for. */
export async function cancelledRuns(db: Db, ids: readonly string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('actorkit_runs')
    .select('id')
    .where('id', 'in', ids)
    .where('cancel_requested', '=', 1)
    .execute();
  return rows.map((row) => row.id);
}

/**
 * Takes over runs in progress whose lease expired: on PostgreSQL the rows are chosen with
 * `FOR UPDATE SKIP LOCKED`, so replicas sweeping at once each take different runs; SQLite has
 * one writer.
 */
export async function takeExpiredRuns(
  trx: Db,
  engine: StoreEngine,
  runner: string,
  nowMs: number,
  leaseExpiresAtMs: number,
  limit: number,
  deadlineMs: number,
): Promise<StoredRun[]> {
  let expired = trx
    .selectFrom('actorkit_runs')
    .select('id')
    .where('state', 'in', RUN_STATES_IN_PROGRESS)
    .where('lease_expires_at_ms', '<', nowMs)
    .where((eb) => eb.or([eb('state', '<>', 'awaiting_input'), eb('lease_expires_at_ms', '<', deadlineMs)]))
    .orderBy('lease_expires_at_ms')
    .limit(limit);
  if (engine === 'postgres') expired = expired.forUpdate().skipLocked();
  const ids = (await expired.execute()).map((row) => row.id);
  if (ids.length === 0) return [];
  const rows = await trx
    .updateTable('actorkit_runs')
    .set({ runner, lease_expires_at_ms: leaseExpiresAtMs })
    .where('id', 'in', ids)
    .returningAll()
    .execute();
  return rows.map(runOfRow);
}

/**
 * Removes the runs finished before `beforeMs`, and their parts. Run ids sort by creation time
 * (`newRunId`), so the runs created before it are a range of the primary key, read without an
 * index of their own; of those, the finished ones go. Parts first, then runs, each statement on
 * its own: an interruption between them leaves runs whose parts are gone, removed next time.
 */
export async function deleteFinishedRuns(trx: Db, beforeMs: number): Promise<void> {
  const old = trx
    .selectFrom('actorkit_runs')
    .select('id')
    .where('id', '<', runIdBefore(beforeMs))
    .where('finished_at_ms', '<', beforeMs);
  await trx
    .deleteFrom('actorkit_run_parts')
    .where('run_id', '<', runIdBefore(beforeMs))
    .where('run_id', 'in', old)
    .execute();
  await trx
    .deleteFrom('actorkit_runs')
    .where('id', '<', runIdBefore(beforeMs))
    .where('finished_at_ms', '<', beforeMs)
    .execute();
}

/** Records decisions on a run awaiting input while its approvals still read `before` (see `RunStore.decideRunApprovals`). */
export async function decideRunApprovals(
  trx: Db,
  id: string,
  before: string,
  after: string,
  resume?: { readonly runner: string; readonly leaseExpiresAtMs: number },
): Promise<StoredRun | null> {
  const row = await trx
    .updateTable('actorkit_runs')
    .set(
      resume === undefined
        ? { approvals: after }
        : { approvals: after, state: 'running', runner: resume.runner, lease_expires_at_ms: resume.leaseExpiresAtMs },
    )
    .where('id', '=', id)
    .where('state', '=', 'awaiting_input')
    .where('approvals', '=', before)
    .returningAll()
    .executeTakeFirst();
  return row === undefined ? null : runOfRow(row);
}
