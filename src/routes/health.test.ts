import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../store/memory-store.js';
import { createTestActor } from '../testing/create-test-actor.js';

describe('GET /health and GET /ready', () => {
  it('reports ok with version, instance id, uptime and the database check', async () => {
    const app = await createTestActor({ env: { INSTANCE_ID: 'pod-7' } });
    const response = await app.request('/health');
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const body = await response.json();
    expect(body).toMatchObject({
      status: 'ok',
      version: '1.2.3',
      instance_id: 'pod-7',
      checks: { database: { status: 'pass' } },
    });
    expect(body.uptime_s).toBeGreaterThanOrEqual(0);
  });

  it('stays 200 but says degraded once the database is found down', async () => {
    const store = new MemoryStore();
    const app = await createTestActor({ store });
    store.failure = new Error('connection refused');
    await app.request('/agent/invoke', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ user_identifier: 'u', session_id: 's', message: 'm' }),
    });
    const response = await app.request('/health');
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body.status).toBe('degraded');
    expect(['warn', 'fail']).toContain(body.checks.database.status);
    expect((await app.request('/ready')).status).toBe(200);
  });

  it('follows the database down and back up, probe after probe', async () => {
    const store = new MemoryStore();
    const app = await createTestActor({ store });
    const invoke = () =>
      app.request('/agent/invoke', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ user_identifier: 'u', session_id: 's', message: 'm' }),
      });
    const health = async () =>
      (await (await app.request('/health')).json()) as {
        status: string;
        checks: { database: { status: string; output: string; kind: string } };
      };
    expect(await health()).toMatchObject({
      status: 'ok',
      checks: { database: { status: 'pass', output: 'memory: reachable', kind: 'memory' } },
    });
    expect((await health()).status).toBe('ok');
    store.failure = new Error('connection refused');
    await invoke();
    expect(await health()).toMatchObject({
      status: 'degraded',
      checks: { database: { status: 'warn', output: expect.stringContaining('connection refused') } },
    });
    store.failure = null;
    expect((await invoke()).status).toBe(200);
    expect(await health()).toMatchObject({
      status: 'ok',
      checks: { database: { status: 'pass', output: 'memory: reachable' } },
    });
  });

  it('turns /ready 503 draining during shutdown', async () => {
    const app = await createTestActor();
    expect(await (await app.request('/ready')).json()).toEqual({ status: 'ready', checks: {} });
    await app.actor.shutdown({ graceMs: 10 });
    const response = await app.request('/ready');
    expect(response.status).toBe(503);
    expect(await response.json()).toMatchObject({ status: 'not_ready', reason: 'draining' });
  });

  it('turns /ready 503 check_failed when an actor check fails, naming it', async () => {
    const app = await createTestActor({ readinessChecks: () => ({ ffmpeg: false, cache: true }) });
    const response = await app.request('/ready');
    expect(response.status).toBe(503);
    expect(await response.json()).toEqual({
      status: 'not_ready',
      reason: 'check_failed',
      checks: { ffmpeg: false, cache: true },
    });
  });

  it('treats a throwing readiness check as not ready, not as a crash', async () => {
    const app = await createTestActor({
      readinessChecks: () => {
        throw new Error('boom');
      },
    });
    expect((await app.request('/ready')).status).toBe(503);
  });
});
