import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { defaultActorFeatures } from '../../core/actor-definition.js';
import { ActorError } from '../../core/actor-error.js';
import { createActorApp } from '../../app/create-actor-app.js';
import { silentLogger } from '../../log/logger.js';
import { MemoryStore } from '../../store/memory-store.js';
import { createTestActor, testActorDefinition } from '../../testing/create-test-actor.js';
import { panelAction, type Panel } from './panel-definition.js';
import { panelRouter } from './panel-router.js';
import { statsPanel } from './stats-panel.js';

const definition = { ...testActorDefinition, features: { ...defaultActorFeatures, includePanel: true } };

const echoPanel: Panel = {
  slug: 'echo',
  title: 'Echo <b>panel</b>',
  data: (_ctx, request) => ({ seen: new URL(request.url).pathname }),
  actions: {
    shout: panelAction({
      payload: v.strictObject({
        text: v.pipe(v.string(), v.minLength(1)),
        times: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1)), 1),
      }),
      run: ({ text, times }) => ({ shouted: text.toUpperCase().repeat(times) }),
    }),
  },
};

const post = (body: unknown, headers: Record<string, string> = { 'Content-Type': 'application/json' }) => ({
  method: 'POST',
  headers,
  body: typeof body === 'string' ? body : JSON.stringify(body),
});

async function actor(panels: Panel[] = [echoPanel, statsPanel()], env: Record<string, string> = {}) {
  return createTestActor({ definition, env, routers: [panelRouter({ panels })] });
}

describe('panelRouter', () => {
  it('serves the page with a nonce CSP, relative URLs only and escaped text', async () => {
    const app = await actor();
    const response = await app.request('/panel/echo');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = response.headers.get('content-security-policy') ?? '';
    const nonce = /script-src 'nonce-([^']+)'/.exec(csp)?.[1];
    expect(nonce).toBeTruthy();
    expect(csp).toContain("default-src 'none'");
    const page = await response.text();
    expect(page).toContain(`<script nonce="${nonce}">`);
    expect(page).toContain('Echo &lt;b&gt;panel&lt;/b&gt;');
    expect(page).not.toContain('<b>panel</b>');
    expect(page).not.toMatch(/(?:href|src|action)="\//);
    expect(page).not.toMatch(/fetch\(['"`]\//);
    const again = await app.request('/panel/echo');
    expect(again.headers.get('content-security-policy')).not.toBe(csp);
  });

  it("may be framed only by a page of its own origin (behind the platform's relay: the relay's)", async () => {
    const app = await actor();
    const response = await app.request('/panel/echo');
    expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'self'");
    expect(response.headers.get('x-frame-options')).toBe('SAMEORIGIN');
  });

  it('answers the data as JSON', async () => {
    const app = await actor();
    const response = await app.request('/panel/echo/data');
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(await response.json()).toEqual({ seen: '/panel/echo/data' });
  });

  it('runs an action with a validated payload', async () => {
    const app = await actor();
    const response = await app.request(
      '/panel/echo/action',
      post({ action: 'shout', payload: { text: 'hi', times: 2 } }),
    );
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ action: 'shout', result: { shouted: 'HIHI' } });
  });

  it('answers 404 for an unknown slug on every route', async () => {
    const app = await actor();
    for (const [path, init] of [
      ['/panel/nope'],
      ['/panel/nope/data'],
      ['/panel/nope/action', post({ action: 'shout' })],
    ] as const) {
      const response = await app.request(path, init);
      expect(response.status, path).toBe(404);
      expect((await response.json()).code).toBe('unknown_panel');
    }
  });

  it('answers 422 for an unknown action, naming the known ones', async () => {
    const app = await actor();
    for (const name of ['explode', 'constructor', '__proto__']) {
      const response = await app.request('/panel/echo/action', post({ action: name, payload: {} }));
      expect(response.status, name).toBe(422);
      const body = await response.json();
      expect(body.code).toBe('unknown_action');
      expect(body.errors).toEqual([{ pointer: '/action', detail: 'must be one of: shout' }]);
    }
  });

  it('answers 422 with pointers under /payload for a bad payload', async () => {
    const app = await actor();
    const response = await app.request(
      '/panel/echo/action',
      post({ action: 'shout', payload: { text: '', times: 1.5, extra: true } }),
    );
    expect(response.status).toBe(422);
    const body = await response.json();
    expect(body.code).toBe('validation_failed');
    expect(body.errors.map((e: { pointer: string }) => e.pointer).sort()).toEqual([
      '/payload/extra',
      '/payload/text',
      '/payload/times',
    ]);
    const missing = await (await app.request('/panel/echo/action', post({ action: 'shout' }))).json();
    expect(missing.errors).toEqual([{ pointer: '/payload/text', detail: 'is required' }]);
  });

  it('answers 422 to an array where the payload is an object, even one with no required field (#40)', async () => {
    const app = await actor();
    // valibot's object schemas take `[]` for `{}`; the document says `type: object`, and so does the actor.
    const response = await app.request('/panel/stats/action', post({ action: 'flush_stats', payload: [] }));
    expect(response.status).toBe(422);
    expect((await response.json()).errors).toEqual([
      { pointer: '/payload', detail: 'must be an object, not an array' },
    ]);
    expect((await app.request('/panel/stats/action', post({ action: 'flush_stats', payload: {} }))).status).toBe(200);
  });

  it('rejects a malformed body: bad JSON, another media type, unknown keys, a missing action', async () => {
    const app = await actor();
    expect((await app.request('/panel/echo/action', post('{nope'))).status).toBe(400);
    expect(
      (
        await app.request(
          '/panel/echo/action',
          post('action=shout', { 'Content-Type': 'application/x-www-form-urlencoded' }),
        )
      ).status,
    ).toBe(415);
    const unknownKey = await (
      await app.request('/panel/echo/action', post({ action: 'shout', payload: { text: 'a' }, also: 1 }))
    ).json();
    expect(unknownKey.errors).toEqual([{ pointer: '/also', detail: 'is not a known field' }]);
    const noAction = await (await app.request('/panel/echo/action', post({ payload: {} }))).json();
    expect(noAction.errors).toEqual([{ pointer: '/action', detail: 'is required' }]);
  });

  it('limits the action body to BODY_LIMIT_BYTES', async () => {
    const app = await actor(undefined, { BODY_LIMIT_BYTES: '64' });
    const response = await app.request(
      '/panel/echo/action',
      post({ action: 'shout', payload: { text: 'x'.repeat(100) } }),
    );
    expect(response.status).toBe(413);
  });

  it('answers 405 for another method', async () => {
    const app = await actor();
    const response = await app.request('/panel/echo/action');
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
  });

  it('sits behind the API key when it is enabled', async () => {
    const app = await actor(undefined, { API_KEY_ENABLED: 'true', API_KEY: 'owner-key' });
    expect((await app.request('/panel/echo')).status).toBe(401);
    expect((await app.request('/panel/echo/data', { headers: { 'X-API-Key': 'owner-key' } })).status).toBe(200);
  });

  it('serves fixed HTML and custom renderers with the CSP nonce', async () => {
    const app = await actor([
      { slug: 'fixed', title: 'Fixed', data: () => ({}), page: '<!doctype html><p>fixed</p>' },
      {
        slug: 'custom',
        title: 'Custom',
        data: () => ({}),
        page: (view) => `<script nonce="${view.nonce}">1</script>${view.title}`,
      },
    ]);
    expect(await (await app.request('/panel/fixed')).text()).toBe('<!doctype html><p>fixed</p>');
    const custom = await app.request('/panel/custom');
    const nonce = /'nonce-([^']+)'/.exec(custom.headers.get('content-security-policy') ?? '')?.[1];
    expect(await custom.text()).toBe(`<script nonce="${nonce}">1</script>Custom`);
  });

  it('turns an ActorError of an action into its problem, and a crash into a 500 without a stack', async () => {
    const refuse = panelAction({
      payload: v.object({}),
      run: () => {
        throw new ActorError(409, 'busy', 'Busy', { detail: 'try later' });
      },
    });
    const crash = panelAction({
      payload: v.object({}),
      run: () => {
        throw new Error('secret internals');
      },
    });
    const app = await actor([{ slug: 'strict', title: 'Strict', data: () => undefined, actions: { refuse, crash } }]);
    expect(await (await app.request('/panel/strict/data')).json()).toBeNull();
    const refused = await app.request('/panel/strict/action', post({ action: 'refuse' }));
    expect(refused.status).toBe(409);
    expect(await refused.json()).toMatchObject({ code: 'busy', detail: 'try later' });
    const crashed = await app.request('/panel/strict/action', post({ action: 'crash' }));
    expect(crashed.status).toBe(500);
    const text = await crashed.text();
    expect(JSON.parse(text).code).toBe('internal_error');
    expect(text).not.toContain('secret internals');
  });

  it('documents its routes in /openapi.json', async () => {
    const app = await actor();
    const document = await (await app.request('/openapi.json')).json();
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining(['/panel/{slug}', '/panel/{slug}/data', '/panel/{slug}/action']),
    );
    expect(document.paths['/panel/{slug}'].get.parameters[0].schema.enum).toEqual(['echo', 'stats']);
  });

  it('documents the action body as one of the actions, each with its payload (#40)', async () => {
    const app = await actor();
    const document = await (await app.request('/openapi.json')).json();
    const { oneOf } = document.paths['/panel/{slug}/action'].post.requestBody.content['application/json'].schema;
    expect(oneOf.map((body: { properties: { action: { const: string } } }) => body.properties.action.const)).toEqual([
      'shout',
      'tenant_stats',
      'flush_stats',
    ]);
    // A payload is required only where `{}` is not one: flush_stats takes a left-out payload.
    expect(oneOf.map((body: { required: string[] }) => body.required)).toEqual([
      ['action', 'payload'],
      ['action', 'payload'],
      ['action'],
    ]);
    expect(oneOf[0].properties.payload.required).toEqual(['text']);
    expect(oneOf[0].additionalProperties).toBe(false);
  });

  it('refuses bad declarations at setup', () => {
    expect(() => panelRouter({ panels: [] })).toThrow(/at least one panel/);
    expect(() => panelRouter({ panels: [{ ...echoPanel, slug: 'Bad Slug' }] })).toThrow(/kebab-case/);
    expect(() => panelRouter({ panels: [echoPanel, echoPanel] })).toThrow(/declared twice/);
    expect(() => panelRouter({ panels: [{ ...echoPanel, actions: { 'Do-It': echoPanel.actions!.shout! } }] })).toThrow(
      /snake_case/,
    );
  });

  it('refuses to mount while include_panel is off', () => {
    expect(() =>
      createActorApp({
        definition: testActorDefinition,
        env: {},
        logger: silentLogger,
        store: new MemoryStore(),
        routers: [panelRouter({ panels: [echoPanel] })],
      }),
    ).toThrow(/includePanel is false/);
  });
});

describe('statsPanel', () => {
  it('shows the statistics and the counters still in memory', async () => {
    const app = await actor();
    await app.request(
      '/agent/invoke',
      post({ user_identifier: 'u1', session_id: 's1', message: 'hello', metadata: { tenant_id: 'acme' } }),
    );
    const data = await (await app.request('/panel/stats/data')).json();
    expect(data).toMatchObject({
      actor: 'Test Actor',
      version: '1.2.3',
      phase: 'ready',
      invocations: 1,
      tenants: 1,
      pending_counters: 0,
    });
  });

  it('looks up a tenant and validates its id', async () => {
    const app = await actor();
    await app.request(
      '/agent/invoke',
      post({ user_identifier: 'u1', session_id: 's1', message: 'hello', metadata: { tenant_id: 'acme' } }),
    );
    const found = await (
      await app.request('/panel/stats/action', post({ action: 'tenant_stats', payload: { tenant_id: 'acme' } }))
    ).json();
    expect(found).toMatchObject({ action: 'tenant_stats', result: { tenant_id: 'acme', invocations: 1 } });
    const bad = await app.request(
      '/panel/stats/action',
      post({ action: 'tenant_stats', payload: { tenant_id: 'a b' } }),
    );
    expect(bad.status).toBe(422);
    expect((await bad.json()).errors[0].pointer).toBe('/payload/tenant_id');
  });

  it('flushes counters kept while the database was down, and says 503 while it still is', async () => {
    const store = new MemoryStore();
    const app = await createTestActor({ definition, store, routers: [panelRouter({ panels: [statsPanel()] })] });
    store.failure = new Error('down');
    await app.request('/agent/invoke', post({ user_identifier: 'u1', session_id: 's1', message: 'hello' }));
    expect(app.actor.context.stats.pending).toBe(1);
    expect((await app.request('/panel/stats/data')).status).toBe(503);
    const refused = await app.request('/panel/stats/action', post({ action: 'flush_stats' }));
    expect(refused.status).toBe(503);
    store.failure = null;
    const flushed = await (
      await app.request('/panel/stats/action', post({ action: 'flush_stats', payload: {} }))
    ).json();
    expect(flushed).toEqual({ action: 'flush_stats', result: { flushed: 1, pending: 0 } });
    expect((await (await app.request('/panel/stats/data')).json()).invocations).toBe(1);
  });
});
