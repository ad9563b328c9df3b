import { describe, expect, it } from 'vitest';
import { createTestActor, testActorDefinition } from '../testing/create-test-actor.js';

const LINKS = { docs: '/docs', health: '/health', openapi: '/openapi.json', metadata: '/api/actor/metadata' };

describe('GET /', () => {
  it('answers JSON by default: name, version, description and links to the documented routes', async () => {
    const app = await createTestActor();
    for (const accept of [undefined, 'application/json', '*/*', 'text/plain']) {
      const response = await app.request('/', accept === undefined ? {} : { headers: { Accept: accept } });
      expect(response.status, String(accept)).toBe(200);
      expect(response.headers.get('content-type')).toContain('application/json');
      expect(await response.json()).toEqual({
        name: 'Test Actor',
        slug: 'test-actor',
        version: '1.2.3',
        description: 'An actor for tests',
        links: LINKS,
      });
    }
  });

  it('links the playground only when PLAYGROUND_ENABLED is on', async () => {
    const on = await createTestActor({ env: { PLAYGROUND_ENABLED: 'yes' } });
    expect((await (await on.request('/')).json()).links).toEqual({ ...LINKS, playground: '/playground' });
    const off = await createTestActor({ env: { PLAYGROUND_ENABLED: 'off' } });
    expect((await (await off.request('/')).json()).links).toEqual(LINKS);
  });

  it('answers a small HTML page, every value escaped, when Accept prefers text/html', async () => {
    const hostile = '<script>alert("x")</script> & \'quotes\'';
    const app = await createTestActor({
      definition: {
        ...testActorDefinition,
        metadata: { ...testActorDefinition.metadata, name: hostile, description: `<img src=x onerror=alert(1)>` },
      },
    });
    const response = await app.request('/', {
      headers: { Accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
    const page = await response.text();
    expect(page).not.toContain('<script>');
    expect(page).not.toContain('<img');
    expect(page).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;quotes&#39;');
    for (const href of Object.values(LINKS)) expect(page).toContain(`href="${href}"`);
    expect(page).not.toMatch(/(src|href)="(https?:)?\/\//);
    const json = await app.request('/', { headers: { Accept: 'text/html;q=0.5, application/json' } });
    expect(json.headers.get('content-type')).toContain('application/json');
  });

  it('answers 405 with Allow for other methods', async () => {
    const app = await createTestActor();
    for (const method of ['POST', 'PUT', 'DELETE']) {
      const response = await app.request('/', { method });
      expect(response.status, method).toBe(405);
      expect(response.headers.get('allow')).toBe('GET, HEAD');
      expect((await response.json()).code).toBe('method_not_allowed');
    }
  });

  it('needs the API key when key authentication is on, as /api/actor/metadata does', async () => {
    const app = await createTestActor({ env: { API_KEY_ENABLED: 'true', API_KEY: 'k1' } });
    for (const path of ['/', '/api/actor/metadata']) {
      const refused = await app.request(path);
      expect(refused.status, path).toBe(401);
      expect((await app.request(path, { headers: { 'X-API-Key': 'k1' } })).status, path).toBe(200);
    }
  });

  it('is described in /openapi.json', async () => {
    const app = await createTestActor();
    const document = await (await app.request('/openapi.json')).json();
    expect(Object.keys(document.paths['/'].get.responses[200].content)).toEqual(['application/json', 'text/html']);
  });
});
