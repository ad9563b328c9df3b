import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultActorFeatures } from '../../core/actor-definition.js';
import { createActorApp } from '../../app/create-actor-app.js';
import { createLogger, createMemorySink, silentLogger } from '../../log/logger.js';
import { MemoryStore } from '../../store/memory-store.js';
import { DomainClient, clientEventPrefix, isBinaryOnPath } from './domain-client.js';
import { DomainClientError } from './domain-client-error.js';

interface WeatherSettings {
  readonly weather_url: string;
}

class WeatherClient extends DomainClient<WeatherSettings> {
  forecast(fail: boolean) {
    return this.safeCall(
      () => {
        if (fail)
          throw new DomainClientError('weather_api_unavailable', 'upstream answered 503', { fields: { status: 503 } });
        return `sunny at ${this.settings.weather_url}`;
      },
      { fallback: 'unknown', action: 'fetch_forecast' },
    );
  }
}

let binDir: string;

beforeAll(async () => {
  binDir = await mkdtemp(join(tmpdir(), 'actorkit-bin-'));
  await writeFile(join(binDir, 'fake-tool'), '#!/bin/sh\nexit 0\n');
  await chmod(join(binDir, 'fake-tool'), 0o755);
  await writeFile(join(binDir, 'not-executable'), 'data');
  await chmod(join(binDir, 'not-executable'), 0o644);
});

afterAll(async () => {
  await rm(binDir, { recursive: true, force: true });
});

describe('DomainClient', () => {
  it('logs <prefix>_client_initialized once, built from the settings only', () => {
    const sink = createMemorySink();
    const client = new WeatherClient({ weather_url: 'https://weather.example' }, { logger: createLogger({ sink }) });
    expect(sink.records).toHaveLength(1);
    expect(sink.records[0]).toMatchObject({
      level: 'info',
      event: 'weather_client_initialized',
      client: 'WeatherClient',
    });
    expect(client.eventPrefix).toBe('weather');
  });

  it('reads the settings live through a function source, and keeps a fixed object as given', async () => {
    let current: WeatherSettings = { weather_url: 'https://one.example' };
    const live = new WeatherClient(() => current, { logger: silentLogger });
    const fixed = new WeatherClient({ weather_url: 'https://fixed.example' }, { logger: silentLogger });
    expect(await live.forecast(false)).toBe('sunny at https://one.example');
    current = { weather_url: 'https://two.example' };
    expect(await live.forecast(false)).toBe('sunny at https://two.example');
    expect(await fixed.forecast(false)).toBe('sunny at https://fixed.example');
  });

  it('uses a static eventPrefix when a bundler renames the class', () => {
    const sink = createMemorySink();
    class Mangled extends DomainClient {
      static override readonly eventPrefix = 'geo';
    }
    new Mangled({}, { logger: createLogger({ sink }) });
    expect(sink.records[0]?.event).toBe('geo_client_initialized');
  });

  it('has a healthCheck meant to be replaced, which never says pass before it is', async () => {
    const client = new WeatherClient({ weather_url: 'x' }, { logger: createLogger({ sink: () => {} }) });
    await expect(client.healthCheck()).resolves.toEqual({
      status: 'warn',
      output: 'WeatherClient.healthCheck() is not implemented: override it to check the service',
    });
  });

  it('reports no readiness checks by default and one per required binary otherwise', () => {
    const quiet = { logger: createLogger({ sink: () => {} }), env: { PATH: binDir } };
    expect(new WeatherClient({ weather_url: 'x' }, quiet).readinessChecks()).toEqual({});
    class ToolClient extends DomainClient {
      static override readonly requiredBinaries = ['fake-tool', 'not-executable', 'surely-not-installed-anywhere'];
    }
    expect(new ToolClient({}, quiet).readinessChecks()).toEqual({
      'binary_fake-tool': true,
      'binary_not-executable': false,
      'binary_surely-not-installed-anywhere': false,
    });
  });

  it('feeds GET /ready through createActorApp: a missing binary makes the actor not ready', async () => {
    class ToolClient extends DomainClient {
      static override readonly requiredBinaries = ['fake-tool', 'surely-not-installed-anywhere'];
    }
    const client = new ToolClient({}, { logger: silentLogger, env: { PATH: binDir } });
    const app = createActorApp({
      definition: {
        metadata: {
          name: 'Tool',
          slug: 'tool-actor',
          version: '0.1.0',
          description: 'Needs tools.',
          domain: 'tool',
          tags: [],
        },
        features: defaultActorFeatures,
        settings: v.object({}),
        sections: [],
      },
      store: new MemoryStore(),
      env: {},
      logger: silentLogger,
      readinessChecks: () => client.readinessChecks(),
    });
    await app.actor.start();
    try {
      const response = await app.request('/ready');
      expect(response.status).toBe(503);
      expect(await response.json()).toEqual({
        status: 'not_ready',
        reason: 'check_failed',
        checks: { 'binary_fake-tool': true, 'binary_surely-not-installed-anywhere': false },
      });
    } finally {
      await app.actor.shutdown({ graceMs: 100 });
    }
  });

  it('falls back through its own safeCall and logs the error event with the client name', async () => {
    const sink = createMemorySink();
    const client = new WeatherClient({ weather_url: 'https://weather.example' }, { logger: createLogger({ sink }) });
    await expect(client.forecast(false)).resolves.toBe('sunny at https://weather.example');
    await expect(client.forecast(true)).resolves.toBe('unknown');
    const warnings = sink.records.filter((record) => record.level === 'warn');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({
      event: 'safe_call_failed',
      action: 'fetch_forecast',
      reason: 'error',
      error_event: 'weather_api_unavailable',
      status: 503,
      client: 'WeatherClient',
    });
  });
});

describe('clientEventPrefix', () => {
  it.each([
    ['WeatherClient', 'weather'],
    ['Weather', 'weather'],
    ['GitHubAPIClient', 'git_hub_api'],
    ['HTTPClient', 'http'],
    ['S3StorageClient', 's3_storage'],
    ['Client', 'client'],
    ['', 'domain'],
  ])('%s → %s', (name, prefix) => {
    expect(clientEventPrefix(name)).toBe(prefix);
  });
});

describe('isBinaryOnPath', () => {
  it('finds executables on PATH and refuses paths and empty names', () => {
    expect(isBinaryOnPath('fake-tool', { PATH: `/nonexistent:${binDir}` })).toBe(true);
    expect(isBinaryOnPath('fake-tool', { PATH: '' })).toBe(false);
    expect(isBinaryOnPath('fake-tool', {})).toBe(false);
    expect(isBinaryOnPath(join(binDir, 'fake-tool'), { PATH: binDir })).toBe(false);
    expect(isBinaryOnPath('', { PATH: binDir })).toBe(false);
    expect(isBinaryOnPath('sh')).toBe(true);
  });
});
