// Pins an SQLite file's WAL for bench/turn-storage-limit.ts, from a process of its own (POSIX
// locks of two SQLite copies in one process do not see each other, so the pin must not share
// the writer's process): empties the WAL (`PRAGMA wal_checkpoint(TRUNCATE)`), opens a read
// transaction, prints `held`, and keeps it until its standard input closes. While it is held
// no checkpoint can copy frames back or restart the WAL, so the `-wal` file grows by one frame
// per page written. Usage: node hold-wal-reader.mjs <file>
import Database from 'libsql';

const database = new Database(process.argv[2]);
database.prepare('PRAGMA wal_checkpoint(TRUNCATE)').get();
database.exec('BEGIN');
database.prepare('select count(*) from actorkit_meta').get();
process.stdout.write('held\n');
process.stdin.on('end', () => {
  database.exec('COMMIT');
  database.close();
  process.exit(0);
});
process.stdin.resume();
