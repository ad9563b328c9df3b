import { describe, expect, it } from 'vitest';
import { createTestActor } from '../testing/create-test-actor.js';

describe('GET /metrics', () => {
  it('serves Prometheus text with route-templated labels and actor metrics', async () => {
    const app = await createTestActor();
    await app.request('/stats/tenant-secret-42');
    await app.request('/agent/invoke', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ user_identifier: 'user-secret', session_id: 'session-secret', message: 'hi' }),
    });
    const response = await app.request('/metrics');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-store');
    const text = await response.text();
    expect(text).toContain('http_requests_total{method="GET",route="/stats/:tenant_id",status="200",ok="true"} 1');
    expect(text).toContain('actor_invocations_total{outcome="success"} 1');
    expect(text).toContain('actor_invoke_duration_seconds_bucket{le="120",outcome="success"} 1');
    expect(text).toContain('process_cpu_user_seconds_total');
    expect(text).not.toMatch(/secret/);
  });

  it('labels token usage with the GenAI operation and provider, and has no blank lines', async () => {
    const app = await createTestActor();
    await app.request('/agent/invoke', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ user_identifier: 'u', session_id: 's', message: 'two words' }),
    });
    const text = await (await app.request('/metrics')).text();
    expect(text).toContain(
      'gen_ai_client_token_usage_count{gen_ai_operation_name="chat",gen_ai_provider_name="offline",gen_ai_request_model="offline",gen_ai_token_type="input"} 1',
    );
    const lines = text.split('\n');
    expect(lines.at(-1)).toBe('');
    expect(lines.slice(0, -1).filter((line) => line.trim() === '')).toEqual([]);
  });

  it('labels unknown paths with a template, never the raw path', async () => {
    const app = await createTestActor();
    await app.request('/some/random/path-xyz');
    const text = await (await app.request('/metrics')).text();
    expect(text).not.toContain('path-xyz');
  });
});
