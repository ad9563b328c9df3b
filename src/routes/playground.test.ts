import { describe, expect, it } from 'vitest';
import { createTestActor } from '../testing/index.js';
import { PLAYGROUND_EVAL_CASES_PATH } from './playground-page.js';

const nonceOf = (csp: string | null) => /script-src 'nonce-([^']+)'/.exec(csp ?? '')?.[1];

describe('GET /playground', () => {
  it('is not served unless PLAYGROUND_ENABLED is on', async () => {
    const actor = await createTestActor();
    const response = await actor.request('/playground');
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toContain('application/problem+json');
    const off = await createTestActor({ env: { PLAYGROUND_ENABLED: 'false' } });
    expect((await off.request('/playground')).status).toBe(404);
  });

  it('cannot be framed by any page: frame-ancestors none and X-Frame-Options DENY', async () => {
    const actor = await createTestActor({ env: { PLAYGROUND_ENABLED: 'true' } });
    const response = await actor.request('/playground');
    expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    for (const page of [await actor.request('/', { headers: { Accept: 'text/html' } }), await actor.request('/docs')]) {
      expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expect(page.headers.get('x-frame-options')).toBe('DENY');
    }
  });

  it('serves one self-contained page under a strict CSP whose nonce is fresh per response', async () => {
    const actor = await createTestActor({ env: { PLAYGROUND_ENABLED: 'true' } });
    const first = await actor.request('/playground');
    const second = await actor.request('/playground');
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = first.headers.get('content-security-policy');
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    const nonce = nonceOf(csp);
    expect(nonce).toMatch(/^[A-Za-z0-9+/]{22}==$/);
    expect(nonceOf(second.headers.get('content-security-policy'))).not.toBe(nonce);
    const page = await first.text();
    expect(page).toContain(`<script nonce="${nonce}">`);
    expect(page).toContain(`<style nonce="${nonce}">`);
    // No CDN, no absolute URL: everything the page loads or calls is relative to where it is served.
    expect(page).not.toMatch(/(src|href)="(https?:)?\/\//);
    expect(page).not.toMatch(/fetch\(['"`]https?:/);
    expect(page.match(/<script/g)).toHaveLength(1);
    expect(first.headers.get('cache-control')).toBe('no-store');
  });

  it('under API keys, the static page loads without a key while every route it calls still needs one', async () => {
    const actor = await createTestActor({
      env: { PLAYGROUND_ENABLED: 'true', API_KEY_ENABLED: 'true', API_KEY: 'k-1' },
    });
    expect((await actor.request('/playground')).status).toBe(200);
    const invoke = () =>
      actor.request('/agent/invoke', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ user_identifier: 'u', session_id: 's', message: 'hi' }),
      });
    expect((await invoke()).status).toBe(401);
    expect((await actor.request('/settings/schema')).status).toBe(401);
    expect((await actor.request('/stats/default')).status).toBe(401);
    expect((await actor.request('/settings/schema', { headers: { 'X-API-Key': 'k-1' } })).status).toBe(200);
    // Only the exact path is public: no path trick reaches another route through it.
    expect((await actor.request('/playground/../settings/schema')).status).toBe(401);
    expect((await actor.request('/playground/')).status).toBe(401);
  });

  it('is documented in /openapi.json (open, no key) only when it is on', async () => {
    const on = await createTestActor({ env: { PLAYGROUND_ENABLED: 'true' } });
    const document = await (await on.request('/openapi.json')).json();
    expect(document.paths['/playground'].get).toMatchObject({ operationId: 'playground', security: [] });
    const off = await createTestActor();
    expect((await (await off.request('/openapi.json')).json()).paths['/playground']).toBeUndefined();
  });

  it('is not public under API keys when the playground is off', async () => {
    const actor = await createTestActor({ env: { API_KEY_ENABLED: 'true', API_KEY: 'k-1' } });
    expect((await actor.request('/playground')).status).toBe(401);
  });
});

describe(`${PLAYGROUND_EVAL_CASES_PATH} ("Save as eval case")`, () => {
  it('does not exist in the app, playground on or off: only actorkit dev serves it (it writes files)', async () => {
    for (const env of [{ PLAYGROUND_ENABLED: 'true' }, {}]) {
      const actor = await createTestActor({ env });
      const listed = await actor.request(PLAYGROUND_EVAL_CASES_PATH);
      expect(listed.status).toBe(404);
      expect(listed.headers.get('content-type')).toContain('application/problem+json');
      const written = await actor.request(PLAYGROUND_EVAL_CASES_PATH, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: 'x', turns: ['hi'] }),
      });
      expect(written.status).toBe(404);
    }
  });

  it('the page builds its button only when a GET of it answers 200, so the served HTML holds no such button', async () => {
    const actor = await createTestActor({ env: { PLAYGROUND_ENABLED: 'true' } });
    const page = await (await actor.request('/playground')).text();
    expect(page).not.toMatch(/<button[^>]*save-eval-case/);
    expect(page).toContain(`base + ${JSON.stringify(PLAYGROUND_EVAL_CASES_PATH)}`);
  });
});
