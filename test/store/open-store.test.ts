import { mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger, createMemorySink, silentLogger } from '../../src/log/logger.js';
import { DatabaseUrlError, parseDatabaseUrl, redactDatabaseUrl } from '../../src/store/database-url.js';
import { openStore } from '../../src/store/open-store.js';

const root = await mkdtemp(join(tmpdir(), 'actorkit-open-'));
afterAll(() => rm(root, { recursive: true, force: true }));

describe('parseDatabaseUrl', () => {
  it.each<[string | undefined, ReturnType<typeof parseDatabaseUrl>]>([
    [undefined, { engine: 'sqlite', location: 'file', path: join('data', 'actor.db') }],
    ['', { engine: 'sqlite', location: 'file', path: join('data', 'actor.db') }],
    ['  ', { engine: 'sqlite', location: 'file', path: join('data', 'actor.db') }],
    ['memory://', { engine: 'sqlite', location: 'memory' }],
    ['MEMORY:', { engine: 'sqlite', location: 'memory' }],
    ['file:relative/x.db', { engine: 'sqlite', location: 'file', path: 'relative/x.db' }],
    ['file:///var/lib/actor%20data/x.db', { engine: 'sqlite', location: 'file', path: '/var/lib/actor data/x.db' }],
    ['postgres://u:p@db:5432/app', { engine: 'postgres', url: 'postgres://u:p@db:5432/app' }],
    ['postgresql://db/app?sslmode=require', { engine: 'postgres', url: 'postgresql://db/app?sslmode=require' }],
  ])('reads %j', (url, expected) => {
    expect(parseDatabaseUrl(url, 'data')).toEqual(expected);
  });

  it.each([
    ['mysql://u:secret@db/app', /scheme "mysql:" is not supported/],
    ['sqlite', /is not a URL/],
    ['localhost:5432', /scheme "localhost:" is not supported/],
    ['postgres://u:secret@[bad/app', /not a valid PostgreSQL URL/],
    ['postgres:///app', /names no host/],
    ['file:', /names no SQLite file/],
    ['file:/var/lib/', /names no SQLite file/],
  ])('refuses %j with a clear DatabaseUrlError that hides the password', (url, message) => {
    let caught: unknown;
    try {
      parseDatabaseUrl(url, 'data');
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(DatabaseUrlError);
    expect((caught as DatabaseUrlError).code).toBe('invalid_database_url');
    expect((caught as Error).message).toMatch(message);
    expect((caught as Error).message).not.toContain('secret');
  });

  it('accepts a socket host given as a query parameter', () => {
    expect(parseDatabaseUrl('postgres:///app?host=/var/run/postgresql', 'data').engine).toBe('postgres');
  });
});

describe('redactDatabaseUrl', () => {
  it.each([
    ['postgres://user:hunter2@db:5432/app', 'postgres://user:***@db:5432/app'],
    ['postgres://db/app', 'postgres://db/app'],
    ['postgres://user:hunter2@[broken', 'postgres:…'],
    ['no url at all', '(not a URL)'],
  ])('shows %j as %j', (url, shown) => {
    expect(redactDatabaseUrl(url)).toBe(shown);
  });
});

describe('openStore', () => {
  it('opens SQLite under dataDir by default, without migrating', async () => {
    const sink = createMemorySink();
    const store = await openStore({ dataDir: join(root, 'default'), logger: createLogger({ sink }) });
    expect(store.kind).toBe('sqlite');
    await expect(store.readStats()).rejects.toThrow(/no such table/);
    await store.migrate();
    expect((await store.readStats()).invocations).toBe(0);
    await store.close();
    expect(sink.records.map((record) => record.event)).toEqual(['store_opened', 'store_migrated']);
  });

  it('creates the data folder 0700 and the SQLite files (database, WAL, shared memory) 0600', async () => {
    const dataDir = join(root, 'private', 'data');
    const store = await openStore({ dataDir, logger: silentLogger });
    try {
      await store.migrate();
      await store.putOAuthState('s1', '{}', Date.now() + 60_000);
      const files = (await readdir(dataDir)).sort();
      expect(files).toEqual(['actor.db', 'actor.db-shm', 'actor.db-wal']);
      const mode = async (path: string) => ((await stat(path)).mode & 0o777).toString(8);
      expect(await mode(join(root, 'private'))).toBe('700');
      expect(await mode(dataDir)).toBe('700');
      for (const file of files) expect(await mode(join(dataDir, file)), file).toBe('600');
    } finally {
      await store.close();
    }
    const named = join(root, 'named', 'x.db');
    const fileStore = await openStore({ url: `file:${named}`, logger: silentLogger });
    await fileStore.close();
    expect(((await stat(named)).mode & 0o777).toString(8)).toBe('600');
    expect(((await stat(join(root, 'named'))).mode & 0o777).toString(8)).toBe('700');
  });

  it('refuses a bad URL before touching anything', async () => {
    await expect(openStore({ url: 'redis://localhost', logger: silentLogger })).rejects.toBeInstanceOf(
      DatabaseUrlError,
    );
  });

  it.each([
    [{ poolSize: 0 }, /poolSize must be a positive integer/],
    [{ poolSize: 2.5 }, /poolSize must be a positive integer/],
    [{ statementTimeoutMs: -1 }, /statementTimeoutMs must be a positive integer/],
    [{ connectTimeoutMs: Number.NaN }, /connectTimeoutMs must be a positive integer/],
  ])('refuses %j', async (options, message) => {
    await expect(openStore({ url: 'memory://', logger: silentLogger, ...options })).rejects.toThrow(message);
  });

  it('returns a PostgreSQL store that does not answer yet, logging why without the password', async () => {
    const sink = createMemorySink();
    const store = await openStore({
      url: 'postgres://actor:hunter2@127.0.0.1:1/app',
      connectTimeoutMs: 2_000,
      logger: createLogger({ sink }),
    });
    try {
      expect(store.kind).toBe('postgres');
      await expect(store.ping()).rejects.toThrow(/ECONNREFUSED/);
      expect(sink.records).toHaveLength(1);
      expect(sink.records[0]).toMatchObject({
        level: 'warn',
        event: 'store_database_unreachable',
        database: 'PostgreSQL at postgres://actor:***@127.0.0.1:1/app',
      });
      expect(JSON.stringify(sink.records)).not.toContain('hunter2');
    } finally {
      await store.close();
    }
  });

  it('explains a DATA_DIR that cannot be created', async () => {
    const file = join(root, 'not-a-directory');
    await writeFile(file, 'x');
    await expect(openStore({ dataDir: join(file, 'data'), logger: silentLogger })).rejects.toThrow(
      /^Cannot open SQLite file .*not-a-directory\/data\/actor\.db: .*(ENOTDIR|EEXIST)/,
    );
  });
});
