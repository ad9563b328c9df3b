import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { StartupRefusal } from '../environment/startup-refusal.js';
import { createLogger, createMemorySink } from '../log/logger.js';
import { createTestActor } from '../testing/create-test-actor.js';
import type { ChatModel, ModelRequest, ModelResponse } from './chat-model.js';
import { defineModelProvider } from './model-provider.js';
import { MODEL_PROVIDERS, withModelProviderTable } from './model-providers.js';

// Adding a model provider is one file (this definition) plus one list entry (`modelProviders`).
const shoutProvider = defineModelProvider({
  name: 'shout',
  description: 'answers in capitals, as the model `LLM_MODEL` names',
  needs: ['LLM_MODEL'],
  createModel: (settings): ChatModel => {
    const respond = (request: ModelRequest): ModelResponse => ({
      text: `${settings.model}: ${request.messages.at(-1)?.content.toUpperCase()}`,
      toolCalls: [],
      usage: { inputTokens: 1, outputTokens: 1 },
      finishReason: 'stop',
    });
    return {
      name: settings.model,
      async generate(request) {
        return respond(request);
      },
      async *stream(request) {
        yield { type: 'finish', response: respond(request) };
      },
    };
  },
});

const invoke = {
  method: 'POST',
  headers: { 'Content-Type': 'application/json' },
  body: JSON.stringify({ user_identifier: 'u', session_id: 's', message: 'hello' }),
};

describe('MODEL_PROVIDERS', () => {
  it('names each provider once, in kebab-case', () => {
    const names = MODEL_PROVIDERS.map((provider) => provider.name);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(name).toMatch(/^[a-z][a-z0-9]*(-[a-z0-9]+)*$/);
  });

  it('is the table of docs/agent.md (`npm run docs:providers` rewrites it)', () => {
    const doc = readFileSync(new URL('../../docs/agent.md', import.meta.url), 'utf8');
    expect(withModelProviderTable(doc), 'docs/agent.md is stale: run `npm run docs:providers`').toBe(doc);
    expect(() => withModelProviderTable('# no markers')).toThrow(/markers/);
  });

  it('takes a provider of the actor’s own: one definition plus one list entry, and a turn runs through it', async () => {
    const sink = createMemorySink();
    const app = await createTestActor({
      env: { LLM_PROVIDER: 'shout', LLM_MODEL: 'loud-1' },
      modelProviders: [...MODEL_PROVIDERS, shoutProvider],
      logger: createLogger({ sink }),
    });
    const response = await app.request('/agent/invoke', invoke);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      status: 'completed',
      model: 'loud-1',
      message: { role: 'assistant', content: 'loud-1: HELLO' },
    });
    expect(sink.records.find((record) => record.event === 'chat_model_selected')).toMatchObject({
      provider: 'shout',
      model: 'loud-1',
    });
  });

  it('refuses at start, in one line listing the names it knows, a provider not in the list or without what it needs', async () => {
    const refusal = (options: Parameters<typeof createTestActor>[0]) =>
      createTestActor(options).then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(await refusal({ env: { LLM_PROVIDER: 'shout', LLM_MODEL: 'loud-1' } })).toMatchObject({
      variable: 'LLM_PROVIDER',
      message: 'LLM_PROVIDER must be one of openai-compatible, offline, got "shout"',
    });
    const withoutModel = await refusal({
      env: { LLM_PROVIDER: 'shout' },
      modelProviders: [...MODEL_PROVIDERS, shoutProvider],
    });
    expect(withoutModel).toBeInstanceOf(StartupRefusal);
    expect(withoutModel).toMatchObject({ message: 'LLM_MODEL is empty but LLM_PROVIDER=shout needs LLM_MODEL' });
  });
});
