import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { environmentPlaceholder, isEnvironmentPlaceholder } from './environment-placeholder.js';
import { EnvironmentConfig } from './environment-schema.js';
import { withEnvironmentTable } from './environment-table.js';
import { ENVIRONMENT_VARIABLES } from './environment-variables.js';
import { environmentOf, parseEnvironment } from './parse-environment.js';
import { StartupRefusal } from './startup-refusal.js';

function refusal(env: Record<string, string>): StartupRefusal {
  try {
    parseEnvironment(env);
  } catch (error) {
    expect(error).toBeInstanceOf(StartupRefusal);
    return error as StartupRefusal;
  }
  throw new Error(`${JSON.stringify(env)} was accepted`);
}

describe('parseEnvironment', () => {
  it('gives every variable of the table its default when the environment is empty', () => {
    const environment = parseEnvironment({});
    expect(environment).toEqual({
      PORT: 8080,
      HOST: '0.0.0.0',
      ALLOWED_HOSTS: [],
      ACTOR_PLATFORM: false,
      PLATFORM_SECRET: undefined,
      API_KEY_ENABLED: false,
      API_KEY: [],
      DATABASE_URL: undefined,
      DATA_DIR: '.actorkit/data',
      DATABASE_POOL_SIZE: 10,
      DATABASE_STATEMENT_TIMEOUT_MS: 10_000,
      DATABASE_TIMEOUT_MS: 5_000,
      HEALTH_CHECK_TIMEOUT_MS: 2_000,
      SETTINGS_REFRESH_MS: 5_000,
      BODY_LIMIT_BYTES: 1_048_576,
      IDEMPOTENCY_TTL_S: 86_400,
      SHUTDOWN_GRACE_MS: 10_000,
      RUN_ON_DISCONNECT: 'continue',
      RUN_RETENTION_S: 86_400,
      RUN_LEASE_MS: 20_000,
      RUN_RETRY_READ_ONLY: false,
      APPROVAL_TIMEOUT_S: 86_400,
      NODE_HEAP_TUNING: true,
      LOG_LEVEL: 'info',
      INSTANCE_ID: undefined,
      HOSTNAME: undefined,
      LLM_PROVIDER: undefined,
      LLM_BASE_URL: undefined,
      LLM_API_KEY: undefined,
      LLM_MODEL: undefined,
      LLM_TIMEOUT_MS: 60_000,
      LLM_MAX_RETRIES: 2,
      HISTORY_LIMIT: 20,
      MAX_TOOL_STEPS: 5,
      MCP_SERVERS: undefined,
      TOOL_APPROVAL: 'none',
      MCP_MAX_BATCH: 10,
      MESH_KEY: undefined,
      WORKFLOW_BASE_URL: undefined,
      OTEL_EXPORTER_OTLP_ENDPOINT: undefined,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
      OTEL_EXPORTER_OTLP_HEADERS: {},
      OTEL_SERVICE_NAME: undefined,
      OTEL_TRACES_SAMPLER: 'parentbased_always_on',
      OTEL_TRACES_SAMPLER_ARG: 1,
      PLAYGROUND_ENABLED: false,
    });
    expect(Object.keys(EnvironmentConfig.entries).sort()).toEqual(Object.keys(ENVIRONMENT_VARIABLES).sort());
  });

  it('reads every typed value, with the on/off spellings of parseOnOff', () => {
    const environment = parseEnvironment({
      PORT: ' 0 ',
      HOST: ' 127.0.0.1 ',
      ACTOR_PLATFORM: 'YES',
      API_KEY_ENABLED: 'on',
      API_KEY: ' a , ,b ',
      DATABASE_POOL_SIZE: '3',
      BODY_LIMIT_BYTES: '',
      LOG_LEVEL: 'debug',
      LLM_PROVIDER: ' offline ',
      LLM_BASE_URL: 'http://127.0.0.1:11434/v1',
      LLM_MODEL: '  ',
      HISTORY_LIMIT: '0',
      PLAYGROUND_ENABLED: '1',
      GREETING: 'kept out',
    });
    expect(environment).toMatchObject({
      PORT: 0,
      HOST: '127.0.0.1',
      ACTOR_PLATFORM: true,
      API_KEY_ENABLED: true,
      API_KEY: ['a', 'b'],
      DATABASE_POOL_SIZE: 3,
      BODY_LIMIT_BYTES: 1_048_576,
      LOG_LEVEL: 'debug',
      LLM_PROVIDER: 'offline',
      LLM_BASE_URL: 'http://127.0.0.1:11434/v1',
      LLM_MODEL: undefined,
      HISTORY_LIMIT: 0,
      PLAYGROUND_ENABLED: true,
    });
    expect(environment).not.toHaveProperty('GREETING');
    for (const off of ['', '0', 'false', 'No', 'OFF'])
      expect(parseEnvironment({ ACTOR_PLATFORM: off }).ACTOR_PLATFORM, off).toBe(false);
  });

  it('keeps a lenient LOG_LEVEL, as before: anything unknown is info', () => {
    expect(parseEnvironment({ LOG_LEVEL: 'verbose' }).LOG_LEVEL).toBe('info');
  });

  it.each([
    [{ PORT: '65536' }, 'PORT', 'PORT must be an integer from 0 to 65535, got "65536"'],
    [{ HOST: 'my host' }, 'HOST', 'HOST must be an IP address or a host name, got "my host"'],
    [{ ACTOR_PLATFORM: 'maybe' }, 'ACTOR_PLATFORM', 'ACTOR_PLATFORM must be true or false, got "maybe"'],
    [{ SHUTDOWN_GRACE_MS: '0' }, 'SHUTDOWN_GRACE_MS', 'SHUTDOWN_GRACE_MS must be a positive integer, got "0"'],
    [{ NODE_HEAP_TUNING: 'maybe' }, 'NODE_HEAP_TUNING', 'NODE_HEAP_TUNING must be true or false, got "maybe"'],
    [{ DATABASE_POOL_SIZE: 'many' }, 'DATABASE_POOL_SIZE', 'DATABASE_POOL_SIZE must be a positive integer, got "many"'],
    [{ MAX_TOOL_STEPS: '-1' }, 'MAX_TOOL_STEPS', 'MAX_TOOL_STEPS must be an integer of at least 0, got "-1"'],
    [{ MCP_MAX_BATCH: '0' }, 'MCP_MAX_BATCH', 'MCP_MAX_BATCH must be a positive integer, got "0"'],
    [{ LLM_BASE_URL: 'not a url' }, 'LLM_BASE_URL', 'LLM_BASE_URL must be an http(s) URL, got "not a url"'],
    [{ LLM_BASE_URL: 'http://[' }, 'LLM_BASE_URL', 'LLM_BASE_URL must be an http(s) URL, got "http://["'],
    [
      { LLM_BASE_URL: 'https://alice:pw-123@models.example/v1' },
      'LLM_BASE_URL',
      'LLM_BASE_URL must not hold a user name or password (user:password@), got "https://models.example/v1"; give the server\'s key on its own',
    ],
    [
      { ALLOWED_HOSTS: 'actor.example,http://x/' },
      'ALLOWED_HOSTS',
      'ALLOWED_HOSTS must be comma-separated host names or addresses, each with an optional port (e.g. actor.example,10.0.0.5:8080), got "actor.example,http://x/"',
    ],
  ])('refuses %j with one line naming the variable', (env, variable, message) => {
    const error = refusal(env);
    expect(error.variable).toBe(variable);
    expect(error.message).toBe(message);
  });

  it('names every bad variable in one line', () => {
    const error = refusal({ PORT: 'x', BODY_LIMIT_BYTES: '-5', API_KEY_ENABLED: 'sure' });
    expect(error.message).not.toContain('\n');
    for (const name of ['PORT', 'BODY_LIMIT_BYTES', 'API_KEY_ENABLED']) expect(error.message).toContain(name);
  });

  it('parses once: environmentOf gives back a parsed environment as is and parses a raw one', () => {
    const parsed = parseEnvironment({ PORT: '3000' });
    expect(environmentOf(parsed)).toBe(parsed);
    expect(Object.isFrozen(parsed)).toBe(true);
    expect(environmentOf({ PORT: '3000' })).toEqual(parsed);
  });
});

describe('deployment.env placeholders', () => {
  it('marks a secret as ${secret:NAME} and a plain variable as ${NAME}', () => {
    expect(environmentPlaceholder('MESH_KEY')).toBe('${secret:MESH_KEY}');
    expect(environmentPlaceholder('WORKFLOW_BASE_URL')).toBe('${WORKFLOW_BASE_URL}');
    expect(isEnvironmentPlaceholder(' ${secret:MESH_KEY} ')).toBe(true);
    for (const value of ['k1', '${}', 'a${B}', '$MESH_KEY']) expect(isEnvironmentPlaceholder(value), value).toBe(false);
  });
});

describe('the README table of environment variables', () => {
  it('is the one `npm run docs:env` generates from the table', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    expect(withEnvironmentTable(readme), 'README.md is stale: run `npm run docs:env`').toBe(readme);
    for (const name of Object.keys(ENVIRONMENT_VARIABLES)) expect(readme).toContain(`| \`${name}\` |`);
  });

  it('refuses a README without the markers', () => {
    expect(() => withEnvironmentTable('# no markers')).toThrow(/markers/);
  });
});
