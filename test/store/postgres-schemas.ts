import pg from 'pg';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';

/** A URL that points at `baseUrl` with `search_path` set to `schema`. */
export function withSearchPath(baseUrl: string, schema: string): string {
  const url = new URL(baseUrl);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return url.href;
}

/** Runs statements on the database (and schema) a URL names, for fault injection and inspection. */
export async function queryTestDatabase<Row extends Record<string, unknown>>(
  url: string,
  statement: string,
): Promise<Row[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<Row>(statement)).rows;
  } finally {
    await client.end();
  }
}

/**
 * Creates throw-away schemas on a PostgreSQL database, one per test, file or benchmark, so
 * runs in parallel never see each other's tables; `dropAll()` removes them.
 */
export class TestSchemas {
  readonly #baseUrl: string;
  readonly #prefix: string;
  readonly #created: string[] = [];

  constructor(baseUrl: string, prefix = 'actorkit_test') {
    this.#baseUrl = baseUrl;
    this.#prefix = prefix;
  }

  /** Creates an empty schema and returns a database URL whose `search_path` is that schema. */
  async create(): Promise<string> {
    const schema = `${this.#prefix}_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
    await queryTestDatabase(this.#baseUrl, `create schema ${schema}`);
    this.#created.push(schema);
    return withSearchPath(this.#baseUrl, schema);
  }

  async dropAll(): Promise<void> {
    const schemas = this.#created.splice(0);
    // A few schemas per statement: one drop of a hundred schemas takes more locks than PostgreSQL has room for.
    for (let start = 0; start < schemas.length; start += 10)
      await queryTestDatabase(
        this.#baseUrl,
        `drop schema if exists ${schemas.slice(start, start + 10).join(', ')} cascade`,
      );
  }
}

/** Puts a cuttable loopback proxy in front of the database a URL names; returns the proxy and the URL through it. */
export async function proxyDatabase(url: string): Promise<{ proxy: TcpProxy; url: string }> {
  const target = new URL(url);
  const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
  const proxied = new URL(url);
  proxied.hostname = '127.0.0.1';
  proxied.port = String(proxy.port);
  return { proxy, url: proxied.href };
}
