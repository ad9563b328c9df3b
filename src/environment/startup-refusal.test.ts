import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { createActorApp } from '../app/create-actor-app.js';
import { silentLogger } from '../log/logger.js';
import { MemoryStore } from '../store/memory-store.js';
import { testActorDefinition } from '../testing/create-test-actor.js';
import { StartupRefusal } from './startup-refusal.js';

const withSettings = (settings: v.ObjectSchema<v.ObjectEntries, undefined>) => ({ ...testActorDefinition, settings });

function refusalOf(build: () => unknown): StartupRefusal {
  try {
    build();
  } catch (error) {
    expect(error).toBeInstanceOf(StartupRefusal);
    expect((error as Error).message).not.toContain('\n');
    return error as StartupRefusal;
  }
  throw new Error('the actor started');
}

const build =
  (definition: typeof testActorDefinition, env: Record<string, string> = {}) =>
  () =>
    createActorApp({ definition, env, logger: silentLogger, store: new MemoryStore() });

describe('start-up refusals of createActorApp', () => {
  it('names the setting and its settings default when llm_base_url defaults to a non-URL', () => {
    const definition = withSettings(v.object({ llm_base_url: v.optional(v.string(), 'not a url') }));
    const refusal = refusalOf(build(definition));
    expect(refusal.variable).toBe('llm_base_url');
    expect(refusal.message).toBe(
      'setting llm_base_url (LLM_BASE_URL) must be an http(s) URL, got "not a url" (from the settings default in src/actor.ts)',
    );
  });

  it('names the setting and the environment variable when LLM_BASE_URL feeds the setting', () => {
    const definition = withSettings(v.object({ llm_base_url: v.optional(v.string(), '') }));
    const refusal = refusalOf(build(definition, { LLM_BASE_URL: 'not a url' }));
    expect(refusal.variable).toBe('llm_base_url');
    expect(refusal.message).toContain(
      'setting llm_base_url (from the environment variable LLM_BASE_URL) must be an http(s) URL',
    );
  });

  it('names the variable alone when the actor declares no such setting', () => {
    const refusal = refusalOf(build(testActorDefinition, { LLM_BASE_URL: 'not a url' }));
    expect(refusal.variable).toBe('LLM_BASE_URL');
    expect(refusal.message).toBe('LLM_BASE_URL must be an http(s) URL, got "not a url"');
  });

  it('masks the value of a secret setting the environment gets wrong, and shows a plain one', () => {
    const definition = withSettings(
      v.object({
        weather_api_key: v.optional(v.pipe(v.string(), v.regex(/^wk_[a-z0-9]+$/), v.metadata({ writeOnly: true }))),
        units: v.optional(v.picklist(['metric', 'imperial']), 'metric'),
      }),
    );
    const secret = refusalOf(build(definition, { WEATHER_API_KEY: 'sk-live-123456' }));
    expect(secret.variable).toBe('weather_api_key');
    expect(secret.message).toContain(
      'setting weather_api_key from the environment variable WEATHER_API_KEY is not valid',
    );
    expect(secret.message).not.toContain('sk-live-123456');
    const plain = refusalOf(build(definition, { UNITS: 'kelvin' }));
    expect(plain.message).toContain('setting units from the environment variable UNITS');
    expect(plain.message).toContain('"kelvin"');
  });

  it('refuses MCP_SERVERS that do not parse, naming the variable', () => {
    expect(refusalOf(build(testActorDefinition, { MCP_SERVERS: '[1]' })).variable).toBe('MCP_SERVERS');
  });
});
