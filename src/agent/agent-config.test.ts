import { describe, expect, it } from 'vitest';
import { parseEnvironment } from '../environment/parse-environment.js';
import { AGENT_DEFAULTS, agentSettingsProblems, readAgentConfig } from './agent-config.js';
import { defineModelProvider } from './model-provider.js';
import { MODEL_PROVIDERS } from './model-providers.js';
import { createOfflineModel } from './providers/offline.js';

describe('readAgentConfig', () => {
  it('defaults to the offline model and the documented knobs', () => {
    expect(readAgentConfig({}, {})).toEqual({
      provider: 'offline',
      baseUrl: undefined,
      apiKey: undefined,
      model: '',
      headers: {},
      ...AGENT_DEFAULTS,
    });
  });

  it('picks the OpenAI-compatible model when LLM_MODEL is set', () => {
    const config = readAgentConfig(
      {
        LLM_BASE_URL: 'http://127.0.0.1:11434/v1',
        LLM_MODEL: 'llama3.1',
        LLM_API_KEY: 'k',
        LLM_TIMEOUT_MS: '5000',
        LLM_MAX_RETRIES: '0',
        HISTORY_LIMIT: '0',
        MAX_TOOL_STEPS: '2',
      },
      {},
    );
    expect(config).toEqual({
      provider: 'openai-compatible',
      baseUrl: 'http://127.0.0.1:11434/v1',
      apiKey: 'k',
      model: 'llama3.1',
      headers: {},
      timeoutMs: 5000,
      maxRetries: 0,
      historyLimit: 0,
      maxToolSteps: 2,
    });
  });

  it('prefers a non-empty setting over the environment', () => {
    const config = readAgentConfig(
      { LLM_MODEL: 'from-env', HISTORY_LIMIT: '3' },
      { llm_model: 'from-settings', history_limit: 7, llm_api_key: '' },
    );
    expect(config).toMatchObject({ model: 'from-settings', historyLimit: 7, apiKey: undefined });
    expect(readAgentConfig({ LLM_MODEL: 'from-env' }, { llm_model: '' }).model).toBe('from-env');
  });

  it('can force the offline model', () => {
    expect(readAgentConfig({ LLM_PROVIDER: 'offline', LLM_MODEL: 'x' }, {}).provider).toBe('offline');
  });

  it.each([
    [{ LLM_PROVIDER: 'anthropic' }, /LLM_PROVIDER/],
    [{ LLM_PROVIDER: 'openai-compatible' }, /needs LLM_MODEL/],
    [{ LLM_BASE_URL: 'localhost:11434' }, /LLM_BASE_URL/],
    [{ LLM_BASE_URL: 'http//x' }, /LLM_BASE_URL/],
    [{ LLM_BASE_URL: 'http://[bad' }, /LLM_BASE_URL/],
    [{ LLM_TIMEOUT_MS: '0' }, /LLM_TIMEOUT_MS/],
    [{ LLM_MAX_RETRIES: '-1' }, /LLM_MAX_RETRIES/],
    [{ HISTORY_LIMIT: 'lots' }, /HISTORY_LIMIT/],
    [{ MAX_TOOL_STEPS: '1.5' }, /MAX_TOOL_STEPS/],
    [
      { LLM_HEADERS: 'x-portkey-provider: openai' },
      /^LLM_HEADERS must be a JSON object of header names to string values/,
    ],
    [
      { LLM_HEADERS: '{"Authorization": "Bearer k"}' },
      /^LLM_HEADERS may not set Authorization: the model server's key goes in LLM_API_KEY/,
    ],
  ])('refuses %j', (env, message) => {
    expect(() => readAgentConfig(env, {})).toThrow(message);
  });

  it('reads LLM_HEADERS, the llm_headers setting first (as JSON text or an object)', () => {
    const env = { LLM_HEADERS: '{"x-portkey-provider": "openai"}' };
    expect(readAgentConfig(env, {}).headers).toEqual({ 'x-portkey-provider': 'openai' });
    expect(readAgentConfig(env, { llm_headers: '{"Helicone-Auth": "Bearer sk-helicone-1"}' }).headers).toEqual({
      'Helicone-Auth': 'Bearer sk-helicone-1',
    });
    expect(readAgentConfig(env, { llm_headers: { 'X-Title': 'My actor' } }).headers).toEqual({ 'X-Title': 'My actor' });
    expect(readAgentConfig(env, { llm_headers: '' }).headers).toEqual({ 'x-portkey-provider': 'openai' });
    expect(() => readAgentConfig({}, { llm_headers: '{"host": "evil"}' })).toThrow(
      'setting llm_headers (LLM_HEADERS) may not set host: the HTTP client sets it',
    );
  });

  it('never echoes the credentials of a bad LLM_BASE_URL (issue #16 item 4)', () => {
    for (const url of ['ftp://user:SECRETPW@host/v1', 'http//user:SECRETPW@host/v1', 'http://user:SECRETPW@[bad/v1']) {
      for (const [env, settings] of [
        [{ LLM_BASE_URL: url }, {}],
        [{}, { llm_base_url: url }],
      ] as const) {
        let message = '';
        try {
          readAgentConfig(env, settings);
        } catch (error) {
          message = (error as Error).message;
        }
        expect(message).toMatch(/LLM_BASE_URL|llm_base_url/);
        expect(message).not.toContain('SECRETPW');
      }
    }
  });

  it('chooses from the list it is given: unset, the first provider whose needs are set', () => {
    const gateway = defineModelProvider({
      name: 'gateway',
      description: 'a test provider',
      needs: ['LLM_BASE_URL', 'LLM_API_KEY'],
      createModel: () => createOfflineModel(),
    });
    const providers = [gateway, ...MODEL_PROVIDERS];
    expect(readAgentConfig({}, {}, providers).provider).toBe('offline');
    expect(readAgentConfig({ LLM_MODEL: 'm' }, {}, providers).provider).toBe('openai-compatible');
    const both = { LLM_BASE_URL: 'http://127.0.0.1:9/v1', LLM_API_KEY: 'k' };
    expect(readAgentConfig(both, {}, providers).provider).toBe('gateway');
    expect(() => readAgentConfig({ LLM_PROVIDER: 'gateway', LLM_API_KEY: 'k' }, {}, providers)).toThrow(
      'LLM_BASE_URL is empty but LLM_PROVIDER=gateway needs LLM_BASE_URL',
    );
    expect(() => readAgentConfig({ LLM_PROVIDER: 'gateway' }, {})).toThrow(
      'LLM_PROVIDER must be one of openai-compatible, offline, got "gateway"',
    );
  });

  it('names the setting of an unknown provider, so PUT /settings refuses it before saving', () => {
    expect(agentSettingsProblems(parseEnvironment({}), { llm_provider: 'anthropic' })).toEqual([
      { pointer: '/llm_provider', detail: 'must be one of openai-compatible, offline, got "anthropic"' },
    ]);
  });
});
