import { describe, expect, it } from 'vitest';
import { createLogger, createMemorySink } from '../log/logger.js';
import { MemoryStore } from '../store/memory-store.js';
import { createTestActor } from '../testing/create-test-actor.js';

const settingsPut = (headers: Record<string, string>, body: unknown = { greeting: 'pwned' }) =>
  new Request('http://127.0.0.1:8080/settings', {
    method: 'PUT',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

async function problemOf(response: Response): Promise<{ status: number; code: unknown; type: string | null }> {
  const body = (await response.json()) as { code?: unknown };
  return { status: response.status, code: body.code, type: response.headers.get('content-type') };
}

describe('the Host check of an actor without a key (DNS rebinding)', () => {
  it('refuses a foreign Host with 421 host_not_allowed and changes nothing (the reproduction of the issue)', async () => {
    const store = new MemoryStore();
    const app = await createTestActor({ store });
    const response = await app.fetch(
      settingsPut({ Host: 'attacker.example:8080', Origin: 'http://attacker.example:8080' }),
    );
    expect(await problemOf(response)).toEqual({
      status: 421,
      code: 'host_not_allowed',
      type: 'application/problem+json',
    });
    expect(await store.loadSettingsOverrides()).toEqual({});
    expect(app.actor.context.settings.values.greeting).toBe('Hello');
  });

  it('refuses a foreign Host on every route, reads included', async () => {
    const app = await createTestActor();
    for (const path of ['/health', '/stats', '/settings/schema', '/', '/api/actor/metadata', '/nowhere']) {
      const response = await app.fetch(
        new Request(`http://127.0.0.1${path}`, { headers: { Host: 'rebound.example' } }),
      );
      expect(response.status, path).toBe(421);
    }
  });

  it('answers the loopback names and addresses, any port, and requests without a Host', async () => {
    const app = await createTestActor();
    for (const host of [
      'localhost',
      'LOCALHOST:3000',
      'actor.localhost:8080',
      '127.0.0.1',
      '127.1.2.3:9',
      '[::1]:8080',
      'localhost.',
    ]) {
      const response = await app.fetch(new Request('http://127.0.0.1/stats', { headers: { Host: host } }));
      expect(response.status, host).toBe(200);
    }
    expect((await app.request('/stats')).status).toBe(200);
  });

  it('answers the names of ALLOWED_HOSTS: a name alone on any port, a name with a port on that port only', async () => {
    const app = await createTestActor({ env: { ALLOWED_HOSTS: 'actor.example, Other.Example:8443,10.0.0.5' } });
    const status = async (host: string) =>
      (await app.fetch(new Request('http://127.0.0.1/stats', { headers: { Host: host } }))).status;
    expect(await status('actor.example')).toBe(200);
    expect(await status('actor.example:9999')).toBe(200);
    expect(await status('other.example:8443')).toBe(200);
    expect(await status('other.example:8444')).toBe(421);
    expect(await status('other.example')).toBe(421);
    expect(await status('10.0.0.5:8080')).toBe(200);
    expect(await status('evil.actor.example')).toBe(421);
  });

  it('refuses to start with an ALLOWED_HOSTS entry that is not a host', async () => {
    await expect(createTestActor({ env: { ALLOWED_HOSTS: 'actor.example,http://x/' } })).rejects.toThrow(
      /ALLOWED_HOSTS/,
    );
  });

  it('does not check the Host with an API key, nor on the platform', async () => {
    const keyed = await createTestActor({ env: { API_KEY_ENABLED: 'true', API_KEY: 'k-123' } });
    expect(
      (
        await keyed.fetch(
          new Request('http://127.0.0.1/stats', { headers: { Host: 'actor.example', 'X-API-Key': 'k-123' } }),
        )
      ).status,
    ).toBe(200);
    const platform = await createTestActor({ env: { ACTOR_PLATFORM: 'true' } });
    expect(
      (await platform.fetch(new Request('http://127.0.0.1/stats', { headers: { Host: 'actor-7.actors.svc:8080' } })))
        .status,
    ).toBe(200);
  });
});

describe('the Origin check on state-changing requests', () => {
  const modes: Record<string, Record<string, string>> = {
    'without a key': {},
    'with a key': { API_KEY_ENABLED: 'true', API_KEY: 'k-123' },
    'on the platform': { ACTOR_PLATFORM: 'true' },
  };
  for (const [mode, env] of Object.entries(modes)) {
    it(`refuses a foreign browser Origin with 403 origin_not_allowed ${mode}`, async () => {
      const app = await createTestActor({ env });
      const key: Record<string, string> = env.API_KEY === undefined ? {} : { 'X-API-Key': env.API_KEY };
      for (const origin of [
        'http://attacker.example',
        'http://localhost:9999',
        'null',
        'https://127.0.0.1:8080.evil',
        'not a url',
      ]) {
        const invoke = await app.fetch(
          new Request('http://127.0.0.1:8080/agent/invoke', {
            method: 'POST',
            headers: { Host: '127.0.0.1:8080', Origin: origin, 'Content-Type': 'application/json', ...key },
            body: JSON.stringify({ user_identifier: 'u', session_id: 's', message: 'hi' }),
          }),
        );
        expect(await problemOf(invoke), origin).toEqual({
          status: 403,
          code: 'origin_not_allowed',
          type: 'application/problem+json',
        });
      }
      for (const method of ['PUT', 'PATCH', 'DELETE', 'POST']) {
        const response = await app.fetch(
          new Request('http://127.0.0.1:8080/nowhere', {
            method,
            headers: { Host: '127.0.0.1:8080', Origin: 'http://attacker.example', ...key },
          }),
        );
        expect(response.status, method).toBe(403);
      }
      expect(await app.actor.context.store.loadSettingsOverrides()).toEqual({});
    });
  }

  it("accepts the actor's own Origin (the playground's and the panels' calls), no Origin, and any Origin on a read", async () => {
    const app = await createTestActor();
    const own = await app.fetch(
      settingsPut({ Host: 'localhost:8080', Origin: 'http://localhost:8080' }, { greeting: 'own' }),
    );
    expect(own.status).toBe(200);
    const tls = await app.fetch(settingsPut({ Host: 'localhost', Origin: 'https://localhost' }, { greeting: 'tls' }));
    expect(tls.status).toBe(200);
    const defaultPort = await app.fetch(
      settingsPut({ Host: 'localhost:80', Origin: 'http://localhost' }, { greeting: 'port 80' }),
    );
    expect(defaultPort.status).toBe(200);
    const curl = await app.fetch(settingsPut({ Host: '127.0.0.1:8080' }, { greeting: 'curl' }));
    expect(curl.status).toBe(200);
    const read = await app.fetch(
      new Request('http://127.0.0.1:8080/stats', {
        headers: { Host: '127.0.0.1:8080', Origin: 'http://attacker.example' },
      }),
    );
    expect(read.status).toBe(200);
  });

  it("trusts the browser's Sec-Fetch-Site over Origin and Host: same-origin and none pass (a relay that rewrites Host), same-site and cross-site do not", async () => {
    const app = await createTestActor({ env: { API_KEY_ENABLED: 'true', API_KEY: 'k-123' } });
    const post = (site: string, origin: string) =>
      app.fetch(
        new Request('http://127.0.0.1:8080/nowhere', {
          method: 'POST',
          headers: { Host: '127.0.0.1:8080', 'X-API-Key': 'k-123', 'Sec-Fetch-Site': site, Origin: origin },
        }),
      );
    expect((await post('same-origin', 'http://127.0.0.1:3000')).status).toBe(404);
    expect((await post('none', 'null')).status).toBe(404);
    expect((await post('same-site', 'http://127.0.0.1:8080')).status).toBe(403);
    expect((await post('cross-site', 'http://127.0.0.1:8080')).status).toBe(403);
  });

  it('on the platform, compares the Origin with the X-Forwarded-Host its relay sends', async () => {
    const app = await createTestActor({ env: { ACTOR_PLATFORM: 'true' } });
    const relayed = (origin: string) =>
      app.fetch(
        new Request('http://actor:8080/nowhere', {
          method: 'POST',
          headers: { Host: 'actor:8080', 'X-Forwarded-Host': 'platform.example', Origin: origin },
        }),
      );
    expect((await relayed('https://platform.example')).status).toBe(404);
    expect((await relayed('https://attacker.example')).status).toBe(403);
  });
});

describe('a restart-required setting', () => {
  it('is saved and listed, but the running actor keeps its value until a restart', async () => {
    const store = new MemoryStore();
    const app = await createTestActor({ store });
    const response = await app.request('/settings', {
      method: 'PUT',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ model: 'remote-model', greeting: 'Hi' }),
    });
    expect(await response.json()).toMatchObject({
      settings: { model: 'remote-model', greeting: 'Hi' },
      applied: ['greeting'],
      restart_required: ['model'],
    });
    expect(app.actor.context.settings.values).toMatchObject({ model: 'offline', greeting: 'Hi' });
    const restarted = await createTestActor({ store });
    expect(restarted.actor.context.settings.values).toMatchObject({ model: 'remote-model', greeting: 'Hi' });
  });
});

describe('the start-up warning', () => {
  it('names ALLOWED_HOSTS when a keyless actor listens on every interface', async () => {
    const { serve } = await import('../adapter/node/index.js');
    const sink = createMemorySink();
    const app = await createTestActor({ logger: createLogger({ sink }) });
    const handle = await serve(app, { port: 0, hostname: '0.0.0.0', signals: false });
    await handle.close();
    const warnings = sink.records.filter((record) => record.event === 'allowed_hosts_needed');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ level: 'warn', hostname: '0.0.0.0' });
    expect(String(warnings[0]!.reason)).toContain('ALLOWED_HOSTS');
  });

  it('is not logged on loopback, with ALLOWED_HOSTS, with a key, or on the platform', async () => {
    const { serve } = await import('../adapter/node/index.js');
    for (const [hostname, env] of [
      ['127.0.0.1', {}],
      ['0.0.0.0', { ALLOWED_HOSTS: 'actor.example' }],
      ['0.0.0.0', { API_KEY_ENABLED: 'true', API_KEY: 'k' }],
      ['0.0.0.0', { ACTOR_PLATFORM: 'true' }],
    ] as const) {
      const sink = createMemorySink();
      const app = await createTestActor({ env, logger: createLogger({ sink }) });
      const handle = await serve(app, { port: 0, hostname, signals: false });
      await handle.close();
      expect(
        sink.records.filter((record) => record.event === 'allowed_hosts_needed'),
        `${hostname} ${JSON.stringify(env)}`,
      ).toEqual([]);
    }
  });
});

describe('the platform secret of a replica (PLATFORM_SECRET, set by `actorkit platform`)', () => {
  const SECRET = 'run-secret-0123456789';
  const onPlatform = () => createTestActor({ env: { ACTOR_PLATFORM: 'true', PLATFORM_SECRET: SECRET } });

  it('refuses a rebinding request, a foreign Origin and a direct call without the secret with 403 not_from_platform', async () => {
    const app = await onPlatform();
    const rebound = await app.fetch(
      new Request('http://127.0.0.1/settings', { headers: { Host: 'attacker.example:41234' } }),
    );
    expect(await problemOf(rebound)).toEqual({
      status: 403,
      code: 'not_from_platform',
      type: 'application/problem+json',
    });
    const foreignOrigin = await app.fetch(
      settingsPut({ Host: '127.0.0.1:41234', Origin: 'http://attacker.example:41234' }),
    );
    expect((await problemOf(foreignOrigin)).code).toBe('not_from_platform');
    for (const path of ['/health', '/stats', '/settings', '/agent/invoke']) {
      expect((await app.fetch(new Request(`http://127.0.0.1:41234${path}`))).status, path).toBe(403);
    }
    const wrong = await app.fetch(
      new Request('http://127.0.0.1/stats', { headers: { 'X-Platform-Secret': `${SECRET}x` } }),
    );
    expect(wrong.status).toBe(403);
  });

  it('answers a request carrying the secret, whatever its Host (the gateway forwards the caller’s)', async () => {
    const app = await onPlatform();
    const answer = await app.fetch(
      new Request('http://127.0.0.1/stats', {
        headers: { 'X-Platform-Secret': SECRET, Host: 'platform.example' },
      }),
    );
    expect(answer.status).toBe(200);
  });

  it('is not checked off the platform, where the API key and the Host guard are the boundary', async () => {
    const app = await createTestActor({ env: { PLATFORM_SECRET: SECRET } });
    expect((await app.fetch(new Request('http://127.0.0.1/stats'))).status).toBe(200);
  });
});
