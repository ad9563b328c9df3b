import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { createLogger, createMemorySink } from '../log/logger.js';
import { ActorTool } from './actor-tool.js';
import { buildDefaultRegistry, ToolRegistry } from './tool-registry.js';

const tool = (name: string, answer = name) =>
  new ActorTool({ name, description: `The ${name} tool`, argsSchema: v.object({}), run: () => answer });

function logged() {
  const sink = createMemorySink();
  return { sink, logger: createLogger({ sink, level: 'debug' }) };
}

describe('ToolRegistry', () => {
  it('keeps the first tool of each name and logs the total and the count per source', async () => {
    const { sink, logger } = logged();
    const tools = await buildDefaultRegistry(
      [tool('hello_greet', 'domain'), tool('hello_time')],
      async () => [tool('hello_greet', 'mcp'), tool('docs_search')],
      { logger },
    ).build();
    expect(tools.map((each) => each.name)).toEqual(['hello_greet', 'hello_time', 'docs_search']);
    expect(tools[0]!.run({})).toBe('domain');
    expect(sink.records.find((record) => record.event === 'tool_registry_built')).toMatchObject({
      level: 'info',
      total: 3,
      sources: { domain: 2, mcp: 1 },
    });
    expect(sink.records.find((record) => record.event === 'tool_duplicate_dropped')).toMatchObject({
      source: 'mcp',
      tool: 'hello_greet',
    });
  });

  it('logs tool_source_failed for a failing source, which contributes nothing', async () => {
    const { sink, logger } = logged();
    const tools = await buildDefaultRegistry([tool('hello_greet')], () => Promise.reject(new Error('server down')), {
      logger,
    }).build();
    expect(tools.map((each) => each.name)).toEqual(['hello_greet']);
    expect(sink.records.find((record) => record.event === 'tool_source_failed')).toMatchObject({
      level: 'warn',
      source: 'mcp',
      error: expect.objectContaining({ message: 'server down' }),
    });
    expect(sink.records.find((record) => record.event === 'tool_registry_built')).toMatchObject({
      total: 1,
      sources: { domain: 1, mcp: 0 },
    });
  });

  it('treats a source that throws at once or gives no list as failed', async () => {
    const { sink, logger } = logged();
    const registry = new ToolRegistry({ logger })
      .add('broken', () => {
        throw new Error('boom');
      })
      .add('odd', (() => 'not a list') as never)
      .add('fine', [tool('hello_greet')]);
    expect((await registry.build()).map((each) => each.name)).toEqual(['hello_greet']);
    expect(
      sink.records.filter((record) => record.event === 'tool_source_failed').map((record) => record.source),
    ).toEqual(['broken', 'odd']);
  });

  it('refuses a source name registered twice', () => {
    expect(() => new ToolRegistry().add('domain', []).add('domain', [])).toThrow(/already registered/);
  });

  it('builds an empty registry when there are no tools', async () => {
    const { sink, logger } = logged();
    expect(await buildDefaultRegistry([], undefined, { logger }).build()).toEqual([]);
    expect(sink.records.find((record) => record.event === 'tool_registry_built')).toMatchObject({
      total: 0,
      sources: { domain: 0, mcp: 0 },
    });
  });
});
