import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActorTool } from '../../src/agent/actor-tool.js';
import { McpToolSource } from '../../src/agent/mcp-tool-source.js';
import { createLogger, createMemorySink } from '../../src/log/logger.js';
import { startHttpMcpServer } from './fixtures/http-mcp-server.js';

const stdioScript = fileURLToPath(new URL('./fixtures/stdio-mcp-server.ts', import.meta.url));

let http: Awaited<ReturnType<typeof startHttpMcpServer>>;
beforeAll(async () => {
  http = await startHttpMcpServer();
});
afterAll(() => http.close());

function logged() {
  const sink = createMemorySink();
  return { sink, logger: createLogger({ sink, level: 'debug' }) };
}

const transports = {
  'Streamable HTTP': () => ({ docs: { url: http.url } }),
  stdio: () => ({ docs: { command: process.execPath, args: ['--import', 'tsx', stdioScript] } }),
};

describe.each(Object.entries(transports))('MCP tools over %s', (_transport, servers) => {
  let source: McpToolSource;
  let tools: ActorTool[];
  let sink: ReturnType<typeof createMemorySink>;
  beforeAll(async () => {
    const log = logged();
    sink = log.sink;
    source = new McpToolSource(servers(), { logger: log.logger, connectTimeoutMs: 20_000 });
    tools = await source.tools();
  });
  afterAll(() => source.close());

  it('lists the tools, named <server>_<tool>, and drops the malformed ones with a warning', () => {
    expect(tools.map((tool) => tool.name)).toEqual(['docs_search_docs', 'docs_fail', 'docs_echo']);
    expect(tools[0]!.definition).toEqual({
      name: 'docs_search_docs',
      description: 'Finds a documentation page by topic',
      parameters: {
        type: 'object',
        properties: { topic: { type: 'string', enum: ['install', 'deploy'] } },
        required: ['topic'],
        additionalProperties: false,
      },
    });
    expect(tools[2]!.description).toBe('Tool echo of the MCP server docs');
    const dropped = sink.records.filter((record) => record.event === 'mcp_tool_dropped');
    expect(dropped.map((record) => record.tool)).toEqual(['broken', '!!!']);
    expect(dropped[0]).toMatchObject({ level: 'warn', server: 'docs', reason: expect.stringContaining('inputSchema') });
    expect(dropped[1]!.reason).toMatch(/snake_case/);
  });

  it('calls a tool on the server and returns its text or structured content', async () => {
    const [search, fail, echo] = tools;
    expect(await search!.runAsync({ topic: 'install' })).toBe('Run npm install actorkit.');
    expect(await echo!.runAsync({ value: [1, 2] })).toEqual({ value: [1, 2] });
    await expect(fail!.runAsync({})).rejects.toThrow('the index is offline');
  });

  it('checks arguments against the tool input schema before calling', () => {
    const [search] = tools;
    const checked = search!.parseArgs({ topic: 'nope', extra: 1 });
    expect(checked.success).toBe(false);
    expect(checked.success ? [] : checked.problems.join('\n')).toMatch(/topic/);
    expect(search!.parseArgs({ topic: 'deploy' })).toEqual({ success: true, output: { topic: 'deploy' } });
    expect(search!.parseArgs('text').success).toBe(false);
  });

  it('lists again over the same connection', async () => {
    expect((await source.tools()).map((tool) => tool.name)).toEqual(tools.map((tool) => tool.name));
  });
});

describe('an MCP server that cannot be reached', () => {
  it('logs tool_source_failed and the other servers still contribute', async () => {
    const { sink, logger } = logged();
    const source = new McpToolSource(
      {
        down: { url: 'http://127.0.0.1:9/mcp' },
        docs: { url: http.url },
        gone: { command: '/nonexistent/mcp-server' },
      },
      { logger, connectTimeoutMs: 5_000 },
    );
    try {
      const tools = await source.tools();
      expect(tools.map((tool) => tool.name)).toEqual(['docs_search_docs', 'docs_fail', 'docs_echo']);
      expect(
        sink.records
          .filter((record) => record.event === 'tool_source_failed')
          .map((record) => record.source)
          .sort(),
      ).toEqual(['mcp:down', 'mcp:gone']);
    } finally {
      await source.close();
    }
  });
});
