// What a flood of `initialize` calls costs `/mcp`: nobody is locked out, and nothing of a
// client's `initialize` stays in the actor's memory.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, describe, expect, it } from 'vitest';
import { createActorApp } from '../../src/app/create-actor-app.js';
import type { ServeHandle } from '../../src/adapter/serve-options.js';
import { createLogger, createMemorySink } from '../../src/log/logger.js';
import { connectMcpClient } from '../contract/mcp-contract.js';
import { serveOnLoopback } from '../surfaces/loopback.js';
import { MCP_POST_HEADERS, mcpTestDefinition } from '../surfaces/mcp-test-actor.js';

/** An `initialize` whose client capabilities carry `padding` characters of experimental data. */
function initialize(padding = 0): string {
  const capabilities = padding === 0 ? {} : { experimental: { padding: { text: 'x'.repeat(padding) } } };
  return JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities, clientInfo: { name: 'flood', version: '1' } },
  });
}

let handle: ServeHandle | undefined;
afterEach(async () => {
  await handle?.close();
  handle = undefined;
});

async function serveMcpActor(env: Record<string, string> = {}) {
  const sink = createMemorySink();
  const app = createActorApp({
    definition: mcpTestDefinition,
    env: { DATABASE_URL: 'memory://', ...env },
    logger: createLogger({ level: 'warn', sink }),
  });
  handle = await serveOnLoopback(app);
  await app.actor.start();
  return { url: handle.url, logs: sink.records };
}

/** The heap in use after a full collection. */
function heapAfterCollection(): number {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
  return process.memoryUsage().heapUsed;
}

describe('/mcp under a flood of initialize calls', () => {
  it('150 initialize calls that never come back do not lock out the next client, and log no warning', async () => {
    const { url, logs } = await serveMcpActor();
    for (let call = 0; call < 150; call += 1) {
      const response = await fetch(`${url}/mcp`, { method: 'POST', headers: MCP_POST_HEADERS, body: initialize() });
      expect(response.status, `initialize ${call}`).toBe(200);
      await response.body?.cancel();
    }
    const client = await connectMcpClient(url);
    expect((await client.callTool({ name: 'chat', arguments: { message: 'still here?' } })).isError).toBeFalsy();
    await client.close();
    expect(logs).toEqual([]);
  });

  it('keeps nothing of 40 initialize calls with 1 MB of client capabilities each', async () => {
    const { url } = await serveMcpActor({ BODY_LIMIT_BYTES: String(2 * 1024 * 1024) });
    const send = async () => {
      const response = await fetch(`${url}/mcp`, {
        method: 'POST',
        headers: MCP_POST_HEADERS,
        body: initialize(1024 * 1024),
      });
      expect(response.status).toBe(200);
      await response.body?.cancel();
    };
    await send();
    const before = heapAfterCollection();
    for (let call = 0; call < 40; call += 1) await send();
    const grown = heapAfterCollection() - before;
    // Each kept initialize holds its 1 MB capabilities (more as a parsed object): 40 would be over 40 MB.
    expect(grown).toBeLessThan(15 * 1024 * 1024);
  });
});
