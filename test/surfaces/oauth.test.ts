// The OAuth flow end to end against oauth2-mock-server on loopback: authorize → provider →
// callback → tokens in the store; reused and expired state, foreign return_to, provider errors,
// refresh; tokens never in a response or a log line.
import * as v from 'valibot';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ServeHandle } from '../../src/adapter/node/index.js';
import { createActorApp } from '../../src/app/create-actor-app.js';
import { createLogger, createMemorySink } from '../../src/log/logger.js';
import {
  createOAuthFlow,
  MemoryOAuthStateStore,
  type ActorOAuthFlow,
  type OAuthProviderConfig,
} from '../../src/oauth/index.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { testActorDefinition } from '../../src/testing/create-test-actor.js';
import { deadPort, serveOnLoopback } from './loopback.js';
import { location, startMockOAuthProvider, type MockOAuthProvider } from './oauth-mock-provider.js';

const STATE_TTL_MS = 5 * 60_000;
const sink = createMemorySink();
const store = new MemoryStore();
const stateStore = new MemoryOAuthStateStore();
const seenBodies: string[] = [];
let clock = Date.now();
let mock: MockOAuthProvider;
let provider: MockOAuthProvider['server'];
let actor: ServeHandle;
let flow: ActorOAuthFlow;
let tokenRequests: string[] = [];

// Settings with the OAuth client credentials of the `settings` provider, fed by the environment.
const definition = {
  ...testActorDefinition,
  settings: v.object({
    ...testActorDefinition.settings.entries,
    oauth_settings_client_id: v.optional(v.string()),
    oauth_settings_client_secret: v.optional(v.pipe(v.string(), v.metadata({ writeOnly: true }))),
  }),
};

async function get(url: string, headers: Record<string, string> = {}): Promise<Response> {
  const response = await fetch(url, { redirect: 'manual', headers });
  seenBodies.push(JSON.stringify([...response.headers]), await response.clone().text());
  return response;
}

/** Starts a flow and follows the provider's redirect; resolves with the callback URL the browser would open. */
async function throughProvider(query: string, headers: Record<string, string> = {}): Promise<string> {
  const start = await get(`${actor.url}/oauth/authorize?${query}`, headers);
  expect(start.status, await start.clone().text()).toBe(302);
  const atProvider = await get(location(start));
  expect(atProvider.status).toBe(302);
  return location(atProvider);
}

beforeAll(async () => {
  mock = await startMockOAuthProvider();
  provider = mock.server;
  tokenRequests = mock.grants;
  const common = {
    issuer: mock.issuer,
    allowInsecureRequests: true,
    scopes: ['openid', 'profile'],
  } satisfies Partial<OAuthProviderConfig>;
  flow = createOAuthFlow({
    providers: [
      mock.config(),
      { provider: 'settings', clientAuthentication: 'client_secret_post', ...common },
      { provider: 'unconfigured', ...common },
      { provider: 'down', issuer: `http://127.0.0.1:${await deadPort()}`, clientId: 'x', allowInsecureRequests: true },
    ],
    stateTtlMs: STATE_TTL_MS,
    stateStore,
    now: () => clock,
  });
  const app = createActorApp({
    definition,
    env: { OAUTH_SETTINGS_CLIENT_ID: 'settingsclient', OAUTH_SETTINGS_CLIENT_SECRET: 'settingssecret' },
    logger: createLogger({ sink }),
    store,
    oauth: flow,
  });
  actor = await serveOnLoopback(app);
});

afterAll(async () => {
  await actor?.close();
  await mock?.stop();
});

beforeEach(() => {
  tokenRequests.length = 0;
});

describe('OAuth flow against oauth2-mock-server', () => {
  it('redirects to the provider with state and PKCE S256, then stores the tokens and returns to return_to', async () => {
    const start = await get(
      `${actor.url}/oauth/authorize?provider=mock&tenant_id=acme&return_to=%2Fpanel%2Fstats%3Ftab%3D1`,
    );
    expect(start.status).toBe(302);
    expect(start.headers.get('cache-control')).toBe('no-store');
    const target = new URL(location(start));
    expect(target.origin + target.pathname).toBe(`${provider.issuer.url}/authorize`);
    expect(Object.fromEntries(target.searchParams)).toMatchObject({
      response_type: 'code',
      client_id: 'actorclient',
      redirect_uri: `${actor.url}/oauth/callback`,
      scope: 'openid profile',
      code_challenge_method: 'S256',
    });
    expect(target.searchParams.get('state')).toMatch(/^[\w-]{40,}$/);
    expect(target.searchParams.get('code_challenge')).toMatch(/^[\w-]{43}$/);

    const callback = location(await get(target.href));
    const done = await get(callback);
    expect(done.status).toBe(302);
    expect(location(done)).toBe('/panel/stats?tab=1');
    expect(done.headers.get('referrer-policy')).toBe('no-referrer');
    expect(tokenRequests).toEqual(['authorization_code']);

    const token = await store.loadOAuthToken('acme', 'mock');
    expect(token).toMatchObject({ tenantId: 'acme', provider: 'mock', tokenType: 'bearer', scope: 'dummy' });
    expect(token!.accessToken.split('.')).toHaveLength(3);
    expect(token!.refreshToken).toMatch(/^[\w-]{36}$/);
    expect(Date.parse(token!.expiresAt!)).toBe(clock + 3600 * 1000);
    const everything = seenBodies.join('\n') + JSON.stringify(sink.records);
    expect(everything).not.toContain(token!.accessToken);
    expect(everything).not.toContain(token!.refreshToken);
    expect(sink.records.map((record) => record.event)).toEqual(
      expect.arrayContaining(['oauth_authorize_started', 'oauth_connected']),
    );
  });

  it('shows a small success page without return_to, and never the token', async () => {
    const done = await get(await throughProvider('provider=mock&tenant_id=page-tenant'));
    expect(done.status, JSON.stringify(sink.records.slice(-2))).toBe(200);
    expect(done.headers.get('content-security-policy')).toContain("default-src 'none'");
    const page = await done.text();
    expect(page).toContain('Connected to Mock ID');
    expect(page).not.toContain((await store.loadOAuthToken('page-tenant', 'mock'))!.accessToken);
  });

  it('takes the tenant from X-Tenant-Id, and refuses a tenant_id that contradicts it', async () => {
    const done = await get(await throughProvider('provider=mock', { 'X-Tenant-Id': 'header-tenant' }));
    expect(done.status).toBe(200);
    expect(await store.loadOAuthToken('header-tenant', 'mock')).not.toBeNull();
    const mismatch = await get(`${actor.url}/oauth/authorize?provider=mock&tenant_id=other`, {
      'X-Tenant-Id': 'header-tenant',
    });
    expect(mismatch.status).toBe(403);
    expect((await mismatch.json()).code).toBe('tenant_mismatch');
    const malformed = await get(`${actor.url}/oauth/authorize?provider=mock&tenant_id=a%20b`);
    expect(malformed.status).toBe(422);
    expect((await malformed.json()).errors[0].pointer).toBe('/tenant_id');
  });

  it('refuses a reused state', async () => {
    const callback = await throughProvider('provider=mock&tenant_id=reuse');
    expect((await get(callback)).status).toBe(200);
    const replay = await get(callback);
    expect(replay.status).toBe(400);
    expect(await replay.json()).toMatchObject({ code: 'invalid_state', status: 400 });
    expect(tokenRequests).toEqual(['authorization_code']);
  });

  it('refuses an empty code with 400 invalid_callback, without asking the provider (#40)', async () => {
    const callback = new URL(await throughProvider('provider=mock&tenant_id=nocode'));
    callback.searchParams.set('code', '');
    const response = await get(callback.href);
    expect(response.status).toBe(400);
    expect((await response.json()).code).toBe('invalid_callback');
    expect(tokenRequests).toEqual([]);
    expect(await store.loadOAuthToken('nocode', 'mock')).toBeNull();
  });

  it('refuses an expired state, an unknown one and a missing one', async () => {
    const callback = await throughProvider('provider=mock&tenant_id=late');
    clock += STATE_TTL_MS;
    const expired = await get(callback);
    expect(expired.status).toBe(400);
    expect((await expired.json()).code).toBe('invalid_state');
    expect(await store.loadOAuthToken('late', 'mock')).toBeNull();
    for (const query of ['code=abc&state=made-up', 'code=abc', 'code=abc&state=']) {
      const response = await get(`${actor.url}/oauth/callback?${query}`);
      expect(response.status, query).toBe(400);
      expect((await response.json()).code).toBe('invalid_state');
    }
    expect(tokenRequests).toEqual([]);
  });

  it('refuses a foreign return_to before anything is remembered', async () => {
    const before = stateStore.size;
    const foreign = [
      '//evil.example/x',
      'https://evil.example/',
      '/\\evil.example',
      '\\\\evil.example',
      'javascript:alert(1)',
      '/ok\r\nSet-Cookie: x',
      '/tab\tx',
      'HTTPS://evil.example',
      '///evil.example',
    ];
    for (const returnTo of foreign) {
      const response = await get(
        `${actor.url}/oauth/authorize?provider=mock&tenant_id=acme&return_to=${encodeURIComponent(returnTo)}`,
      );
      expect(response.status, returnTo).toBe(400);
      const body = await response.json();
      expect(body.code).toBe('invalid_return_to');
      expect(body.errors[0].pointer).toBe('/return_to');
    }
    const raw = await get(`${actor.url}/oauth/authorize?provider=mock&return_to=/ok%0d%0aSet-Cookie:x`);
    expect(raw.status).toBe(400);
    expect(stateStore.size).toBe(before);
  });

  it('returns to a return_to beyond Latin-1 with the path percent-encoded, never a bare 500', async () => {
    const cases: [string, string][] = [
      ['/caf\u00e9/\u20ac?q=\u{1f600}#\u0100', '/caf%C3%A9/%E2%82%AC?q=%F0%9F%98%80#%C4%80'],
      ['/already%20encoded/\u00ff', '/already%20encoded/%C3%BF'],
    ];
    for (const [returnTo, expected] of cases) {
      const done = await get(
        await throughProvider(`provider=mock&tenant_id=unicode&return_to=${encodeURIComponent(returnTo)}`),
      );
      expect(done.status, returnTo).toBe(302);
      expect(location(done)).toBe(expected);
    }
  });

  it('answers 400 oauth_provider_error when the provider refuses, and the state is spent', async () => {
    provider.service.once('beforeAuthorizeRedirect', ({ url }: { url: URL }) => {
      url.searchParams.delete('code');
      url.searchParams.set('error', 'access_denied');
      url.searchParams.set('error_description', 'The user said no');
    });
    const callback = await throughProvider('provider=mock&tenant_id=denied');
    const denied = await get(callback);
    expect(denied.status).toBe(400);
    expect(await denied.json()).toMatchObject({
      code: 'oauth_provider_error',
      detail: 'Provider mock answered access_denied',
    });
    expect((await get(callback)).status).toBe(400);
    expect(tokenRequests).toEqual([]);
    expect(sink.records.find((record) => record.event === 'oauth_authorization_denied')).toMatchObject({
      provider: 'mock',
      tenant_id: 'denied',
      error: 'access_denied',
    });
  });

  it('answers 502 token_exchange_failed when the token endpoint refuses the code', async () => {
    provider.service.once('beforeResponse', (response: { body: unknown; statusCode: number }) => {
      response.body = { error: 'invalid_grant', error_description: 'code already used' };
      response.statusCode = 400;
    });
    const failed = await get(await throughProvider('provider=mock&tenant_id=exchange'));
    expect(failed.status).toBe(502);
    expect(await failed.json()).toMatchObject({
      code: 'token_exchange_failed',
      detail: 'Exchanging the code with provider mock failed (invalid_grant)',
    });
    expect(await store.loadOAuthToken('exchange', 'mock')).toBeNull();
  });

  it('reads client credentials from the settings, and answers 503 for a provider without them', async () => {
    const start = await get(`${actor.url}/oauth/authorize?provider=settings&tenant_id=acme`);
    expect(new URL(location(start)).searchParams.get('client_id')).toBe('settingsclient');
    const done = await get(location(await get(location(start))));
    expect(done.status).toBe(200);
    const unconfigured = await get(`${actor.url}/oauth/authorize?provider=unconfigured`);
    expect(unconfigured.status).toBe(503);
    expect((await unconfigured.json()).code).toBe('oauth_provider_unconfigured');
  });

  it('answers 404 for an unknown or missing provider, and 502 when discovery fails', async () => {
    for (const query of ['provider=nope', '']) {
      const response = await get(`${actor.url}/oauth/authorize?${query}`);
      expect(response.status, query).toBe(404);
      expect((await response.json()).code).toBe('unknown_provider');
    }
    const down = await get(`${actor.url}/oauth/authorize?provider=down`);
    expect(down.status).toBe(502);
    expect((await down.json()).code).toBe('oauth_provider_unavailable');
  });
});

describe('OAuth flow on an actor with API_KEY_ENABLED', () => {
  it("needs the key to start, and lets the provider's redirect to /oauth/callback through without one", async () => {
    const keyed = createOAuthFlow({ providers: [mock.config()], stateStore: new MemoryOAuthStateStore() });
    const keyedStore = new MemoryStore();
    const app = createActorApp({
      definition,
      env: { API_KEY_ENABLED: 'true', API_KEY: 'the-key' },
      logger: createLogger({ sink: createMemorySink() }),
      store: keyedStore,
      oauth: keyed,
    });
    const server = await serveOnLoopback(app);
    try {
      const withoutKey = await get(`${server.url}/oauth/authorize?provider=mock&tenant_id=keyed`);
      expect(withoutKey.status).toBe(401);
      const start = await get(`${server.url}/oauth/authorize?provider=mock&tenant_id=keyed&return_to=/done`, {
        'X-API-Key': 'the-key',
      });
      expect(start.status).toBe(302);
      const callback = location(await get(location(start)));
      expect(new URL(callback).pathname).toBe('/oauth/callback');
      const done = await get(callback);
      expect(done.status, await done.clone().text()).toBe(302);
      expect(location(done)).toBe('/done');
      expect(await keyedStore.loadOAuthToken('keyed', 'mock')).not.toBeNull();
      const replay = await get(callback);
      expect(replay.status).toBe(400);
      expect((await replay.json()).code).toBe('invalid_state');
    } finally {
      await server.close();
    }
  });
});

describe('getAccessToken', () => {
  it('returns the stored token while it is fresh and refreshes it once when it expires', async () => {
    expect((await get(await throughProvider('provider=mock&tenant_id=tools'))).status).toBe(200);
    const first = await store.loadOAuthToken('tools', 'mock');
    tokenRequests.length = 0;
    expect(await flow.getAccessToken('tools', 'mock')).toBe(first!.accessToken);
    expect(tokenRequests).toEqual([]);

    clock += 3600 * 1000;
    const [a, b, c] = await Promise.all([
      flow.getAccessToken('tools', 'mock'),
      flow.getAccessToken('tools', 'mock'),
      flow.getAccessToken('tools', 'mock'),
    ]);
    expect(tokenRequests).toEqual(['refresh_token']);
    expect(a).not.toBe(first!.accessToken);
    expect(b).toBe(a);
    expect(c).toBe(a);
    const renewed = await store.loadOAuthToken('tools', 'mock');
    expect(renewed).toMatchObject({ accessToken: a, expiresAt: new Date(clock + 3600 * 1000).toISOString() });
    expect(JSON.stringify(sink.records)).not.toContain(a);
  });

  it('asks for a new authorization when the refresh token is refused or the tenant never connected', async () => {
    expect((await get(await throughProvider('provider=mock&tenant_id=revoked'))).status).toBe(200);
    clock += 3600 * 1000;
    provider.service.once('beforeResponse', (response: { body: unknown; statusCode: number }) => {
      response.body = { error: 'invalid_grant' };
      response.statusCode = 400;
    });
    await expect(flow.getAccessToken('revoked', 'mock')).rejects.toMatchObject({
      status: 409,
      code: 'oauth_reauthorization_required',
    });
    await expect(flow.getAccessToken('stranger', 'mock')).rejects.toMatchObject({
      status: 409,
      code: 'oauth_not_connected',
    });
    await expect(flow.getAccessToken('stranger', 'nope')).rejects.toMatchObject({
      status: 404,
      code: 'unknown_provider',
    });
  });
});
