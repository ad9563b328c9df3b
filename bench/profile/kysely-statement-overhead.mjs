// What Kysely adds to one statement of the store: runs `PRAGMA data_version` a fixed number of
// times inside one Kysely transaction on a `node:sqlite` connection of the store's own
// (`nodeSqliteDatabase`, its statement cache), either as raw SQL text through Kysely — as the store
// runs its per-invoke statements — or straight on the cached statement, then stops. Counted
// under valgrind at two counts, the difference is the instructions of one statement each way
// (docs/performance.md, "Issue 30: the group write"). Node 24 (for `node:sqlite`), after `npm
// run build`:
//   valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
//     test/runtimes/node_modules/.bin/node --predictable bench/profile/kysely-statement-overhead.mjs <kysely|direct> <count>
import { CompiledQuery, Kysely, SqliteDialect } from 'kysely';
import { loadNodeSqlite, nodeSqliteDatabase } from '../../dist/src/store/node-sqlite-database.js';

const [mode, countText] = process.argv.slice(2);
const count = Number(countText);
if (!['kysely', 'direct'].includes(mode ?? '') || !(count > 0)) throw new Error('usage: kysely-statement-overhead.mjs <kysely|direct> <count>');
const sqlite = loadNodeSqlite();
if (sqlite === undefined) throw new Error('this Node has no node:sqlite the store can use: run it with Node 24 (test/runtimes)');
const database = nodeSqliteDatabase(sqlite, ':memory:', { busyTimeoutMs: 1_000 });
const db = new Kysely({ dialect: new SqliteDialect({ database }) });
await db.transaction().execute(async (trx) => {
  for (let index = 0; index < count; index += 1) {
    if (mode === 'kysely') [...(await trx.executeQuery(CompiledQuery.raw('PRAGMA data_version', []))).rows]; // as SqlStore's querySqlText
    else database.prepare('PRAGMA data_version').all([]);
  }
});
await db.destroy();
