import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { StartupRefusal } from '../environment/startup-refusal.js';
import { createLogger, createMemorySink } from '../log/logger.js';
import { createActorAgent } from './actor-agent.js';
import { ActorTool } from './actor-tool.js';
import type { ChatInput } from '../invoke/chat-handler.js';
import { ToolRegistry } from './tool-registry.js';

const input = (settings: Record<string, unknown> = {}, message = 'hello'): ChatInput => ({
  request: { user_identifier: 'u', session_id: 's', message, role: 'user' },
  tenantId: 't',
  requestId: 'r',
  messageId: 'msg_r',
  signal: new AbortController().signal,
  settings,
});
const greet = new ActorTool({ name: 'hello_greet', description: 'Greets', argsSchema: v.object({}), run: () => 'hi' });

function agentWith(settings: Record<string, unknown>, extra: Partial<Parameters<typeof createActorAgent>[0]> = {}) {
  const sink = createMemorySink();
  const agent = createActorAgent({ env: {}, settings: () => settings, logger: createLogger({ sink }), ...extra });
  return { agent, sink };
}

describe('createActorAgent', () => {
  it('answers with the offline model when no model is configured', async () => {
    const { agent } = agentWith({});
    await agent.start();
    expect((await agent.chatHandler(input())).model).toBe('offline');
  });

  it('follows a settings change on the next invoke and logs the model without credentials', async () => {
    const settings: Record<string, unknown> = {};
    const { agent, sink } = agentWith(settings);
    await agent.chatHandler(input(settings));
    settings.llm_model = 'gpt-test';
    settings.llm_base_url = 'http://user:secret@127.0.0.1:9/v1';
    settings.llm_max_retries = 0;
    const withCredentials = await agent.chatHandler(input(settings)).catch((error: unknown) => error);
    expect(withCredentials).toMatchObject({
      status: 500,
      code: 'agent_misconfigured',
      detail: expect.stringContaining('user name or password'),
    });
    expect(JSON.stringify(withCredentials)).not.toContain('secret');
    settings.llm_base_url = 'http://127.0.0.1:9/v1';
    const failure = await agent.chatHandler(input(settings)).catch((error: unknown) => error);
    expect(failure).toMatchObject({ status: 502, code: 'model_error' });
    const selected = sink.records.filter((record) => record.event === 'chat_model_selected');
    expect(selected.map((record) => record.provider)).toEqual(['offline', 'openai-compatible']);
    expect(selected[1]!.base_url).toBe('http://127.0.0.1:9/v1');
    expect(JSON.stringify(sink.records)).not.toContain('secret');
  });

  it('answers from the history the turn hands it, at most HISTORY_LIMIT of its last messages, without a store', async () => {
    const settings: Record<string, unknown> = { history_limit: 2 };
    const seen: string[][] = [];
    const model = {
      name: 'echo-history',
      generate: async (request: { messages: readonly { content: string }[] }) => {
        seen.push(request.messages.map((message) => message.content));
        return { text: 'ok', toolCalls: [], usage: { inputTokens: 1, outputTokens: 1 }, finishReason: 'stop' as const };
      },
      async *stream() {},
    };
    const { agent } = agentWith(settings, { model });
    expect(agent.historyLimit(settings)).toBe(2);
    expect(agent.historyLimit({ history_limit: -3 })).toBe(0);
    const history = ['first', 'second', 'third'].map((content, index) => ({
      id: `m${index}`,
      role: 'user' as const,
      content,
      createdAt: '2025-01-01T00:00:00.000Z',
    }));
    const result = await agent.chatHandler({ ...input(settings, 'fourth'), history });
    expect(seen).toEqual([['second', 'third', 'fourth']]);
    expect(result.history?.map((message) => message.content)).toEqual(['fourth', 'ok']);
  });

  it('answers 500 agent_misconfigured when the settings turn invalid at run time', async () => {
    const { agent } = agentWith({});
    await expect(agent.chatHandler(input({ max_tool_steps: -3 }))).rejects.toMatchObject({
      status: 500,
      code: 'agent_misconfigured',
      detail: expect.stringContaining('MAX_TOOL_STEPS'),
    });
  });

  it('refuses a misconfigured environment at setup', () => {
    expect(() =>
      createActorAgent({
        env: { LLM_MAX_RETRIES: '-1' },
        settings: () => ({}),
        logger: createLogger({ sink: () => {} }),
      }),
    ).toThrow(/LLM_MAX_RETRIES/);
  });

  it('refuses an unknown LLM_PROVIDER at setup with one line listing the providers it knows', () => {
    const refusal = (() => {
      try {
        createActorAgent({
          env: { LLM_PROVIDER: 'anthropic' },
          settings: () => ({}),
          logger: createLogger({ sink: () => {} }),
        });
      } catch (error) {
        return error;
      }
    })();
    expect(refusal).toBeInstanceOf(StartupRefusal);
    expect(refusal).toMatchObject({
      variable: 'LLM_PROVIDER',
      message: 'LLM_PROVIDER must be one of openai-compatible, offline, got "anthropic"',
    });
  });

  it('builds the domain tools at start, or uses the registry the actor brings', async () => {
    const { agent } = agentWith({}, { tools: [greet] });
    expect(agent.tools).toEqual([]);
    await agent.start();
    expect(agent.tools.map((tool) => tool.name)).toEqual(['hello_greet']);
    const own = agentWith(
      {},
      { tools: new ToolRegistry({ logger: createLogger({ sink: () => {} }) }).add('mine', [greet]) },
    );
    await own.agent.start();
    expect(own.sink.records.find((record) => record.event === 'tool_registry_built')).toBeUndefined();
    expect(own.agent.tools).toHaveLength(1);
  });

  it('logs tool_source_failed when MCP servers saved since setup do not parse, and still starts', async () => {
    const settings: Record<string, unknown> = {};
    const { agent, sink } = agentWith(settings, { tools: [greet] });
    settings.mcp_servers = '{"Bad Name": {}}';
    await agent.start();
    expect(sink.records.find((record) => record.event === 'tool_source_failed')).toMatchObject({
      source: 'mcp',
      error: expect.objectContaining({ message: expect.stringContaining('snake_case') }),
    });
    expect(agent.tools.map((tool) => tool.name)).toEqual(['hello_greet']);
  });
});
