import { describe, expect, it } from 'vitest';
import type { PlatformConfig } from '../src/sdk/index.js';
import { CliError } from '../cli/library.js';
import { actorEnvironment, type ActorEnvironmentInputs } from './replica-environment.js';

const config = {
  actor: { slug: 'weather' },
  deployment: {
    env: {
      ACTOR_PLATFORM: 'true',
      MESH_KEY: '${secret:MESH_KEY}',
      WEATHER_TOKEN: '${secret:WEATHER_TOKEN}',
      FEED_URL: '${FEED_BASE}/feed',
    },
  },
  settings: {
    type: 'object',
    properties: {
      llm_model: { type: 'string', 'x-platform-managed-by': 'platform' },
      llm_api_key: { type: 'string', 'x-platform-managed-by': 'user', writeOnly: true },
    },
  },
} as unknown as PlatformConfig;

function inputs(overrides: Partial<ActorEnvironmentInputs> = {}): ActorEnvironmentInputs {
  return {
    ref: 'weather',
    config,
    secrets: { path: '/state/secrets.env', present: true, values: new Map([['WEATHER_TOKEN', 'tok-123']]) },
    platformEnv: {
      PATH: '/usr/bin',
      FEED_BASE: 'https://feeds.example',
      LLM_MODEL: 'gpt-test',
      LLM_API_KEY: 'sk-platform-own',
      AWS_SECRET_ACCESS_KEY: 'platform-only',
    },
    meshKey: 'group-key',
    platformSecret: 'run-secret',
    database: { DATABASE_URL: 'postgres://db/actors' },
    services: new Map([
      ['weather', { host: '127.0.0.1', port: 4100 }],
      ['news-desk', { host: '127.0.0.1', port: 4200 }],
    ]),
    ...overrides,
  };
}

function refusal(run: () => unknown): CliError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(CliError);
    return error as CliError;
  }
  throw new Error('expected a refusal');
}

describe('actorEnvironment', () => {
  it('fills deployment.env from the secrets file and the platform environment, and sets what the platform decides', () => {
    const env = actorEnvironment(inputs());
    expect(env).toMatchObject({
      ACTOR_PLATFORM: 'true',
      HOST: '127.0.0.1',
      PLATFORM_SECRET: 'run-secret',
      WEATHER_TOKEN: 'tok-123',
      FEED_URL: 'https://feeds.example/feed',
      MESH_KEY: 'group-key',
      DATABASE_URL: 'postgres://db/actors',
      PATH: '/usr/bin',
      WEATHER_SERVICE_HOST: '127.0.0.1',
      WEATHER_SERVICE_PORT: '4100',
      NEWS_DESK_SERVICE_PORT: '4200',
    });
  });

  it('passes a platform-managed setting from the platform environment, and nothing else of it', () => {
    const env = actorEnvironment(inputs());
    expect(env.LLM_MODEL).toBe('gpt-test');
    expect(env.LLM_API_KEY).toBeUndefined();
    expect(env.AWS_SECRET_ACCESS_KEY).toBeUndefined();
  });

  it('refuses a missing secret naming it and the file, with no secret value in the message', () => {
    const error = refusal(() =>
      actorEnvironment(
        inputs({
          secrets: { path: '/state/secrets.env', present: true, values: new Map([['OTHER', 'sk-other-value']]) },
        }),
      ),
    );
    expect(error.code).toBe('missing_secret');
    expect(error.message).toBe(
      'weather: deployment.env.WEATHER_TOKEN needs the secret WEATHER_TOKEN, but /state/secrets.env has no WEATHER_TOKEN: add the line WEATHER_TOKEN=… (pass another file with --secrets)',
    );
    expect(error.message).not.toContain('sk-other-value');
  });

  it('refuses a ${NAME} the platform environment does not set', () => {
    const error = refusal(() => actorEnvironment(inputs({ platformEnv: {} })));
    expect(error.code).toBe('missing_variable');
    expect(error.message).toContain('${FEED_BASE}');
  });
});
