// `/mcp` behind a round-robin load balancer in front of two replicas on one database: the
// official MCP client connects, lists tools and calls them, although every request of a
// connection lands on the other replica than the one before.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createActorApp } from '../../src/app/create-actor-app.js';
import { createLogger, createMemorySink } from '../../src/log/logger.js';
import { connectMcpClient } from '../contract/mcp-contract.js';
import { TestSchemas } from '../store/postgres-schemas.js';
import { postgresTestUrl } from '../store/postgres-test-database.js';
import { serveOnLoopback } from '../surfaces/loopback.js';
import { lookupTool, mcpTestDefinition } from '../surfaces/mcp-test-actor.js';
import { startRoundRobinProxy } from './support/round-robin-proxy.js';

const CONNECTIONS = 20;
const closers: (() => Promise<void>)[] = [];
const sink = createMemorySink();
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

/** Two replicas on `env`'s database behind a round-robin proxy; resolves with the proxy's URL. */
async function twoReplicasBehindProxy(env: Record<string, string>): Promise<string> {
  const replicas: string[] = [];
  // One after the other: replicas migrating one SQLite file at the same moment wait on its lock (and log it).
  for (const _replica of [1, 2]) {
    const app = createActorApp({
      definition: mcpTestDefinition,
      env,
      tools: [lookupTool],
      logger: createLogger({ level: 'warn', sink }),
    });
    const handle = await serveOnLoopback(app);
    await app.actor.start();
    closers.push(() => handle.close());
    replicas.push(handle.url);
  }
  const proxy = await startRoundRobinProxy(replicas);
  closers.push(() => proxy.close());
  return proxy.url;
}

/** Connects the official client `CONNECTIONS` times, each listing tools, calling the domain tool and chatting twice; resolves with how many succeeded. */
async function connectEachTime(url: string): Promise<{ succeeded: number; failures: string[] }> {
  const failures: string[] = [];
  for (let attempt = 0; attempt < CONNECTIONS; attempt += 1) {
    try {
      const client = await connectMcpClient(url);
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(['chat', 'test_lookup']);
      expect(
        (await client.callTool({ name: 'test_lookup', arguments: { topic: `t${attempt}` } })).structuredContent,
      ).toEqual({ topic: `t${attempt}`, text: `about t${attempt}` });
      const first = (await client.callTool({ name: 'chat', arguments: { message: 'Remember heliotrope' } }))
        .structuredContent as { session_id: string };
      const second = (await client.callTool({ name: 'chat', arguments: { message: 'What was it?' } }))
        .structuredContent as { session_id: string; message: { content: string } };
      expect(second.session_id).toBe(first.session_id);
      expect(second.message.content).toContain('I can see 2 earlier messages');
      await client.close();
    } catch (error) {
      failures.push(`connection ${attempt}: ${(error as Error).message}`);
    }
  }
  return { succeeded: CONNECTIONS - failures.length, failures };
}

describe('/mcp behind two replicas and a round-robin load balancer', () => {
  const dirs: string[] = [];
  afterAll(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

  it(`serves ${CONNECTIONS} of ${CONNECTIONS} connections of the official client on one SQLite file`, async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'actorkit-mcp-replicas-'));
    dirs.push(dataDir);
    const result = await connectEachTime(await twoReplicasBehindProxy({ DATA_DIR: dataDir }));
    expect(result.failures).toEqual([]);
    expect(result.succeeded).toBe(CONNECTIONS);
    expect(sink.records.filter((record) => record.level === 'error')).toEqual([]);
  });

  const baseUrl = postgresTestUrl('/mcp across replicas');
  if (baseUrl !== undefined) {
    const schemas = new TestSchemas(baseUrl, 'actorkit_mcp');
    afterAll(() => schemas.dropAll());

    it(`serves ${CONNECTIONS} of ${CONNECTIONS} connections of the official client on one PostgreSQL schema`, async () => {
      const result = await connectEachTime(await twoReplicasBehindProxy({ DATABASE_URL: await schemas.create() }));
      expect(result.failures).toEqual([]);
      expect(result.succeeded).toBe(CONNECTIONS);
    });
  }
});
