import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { HttpMetrics } from './http-metrics.js';

describe('HttpMetrics', () => {
  it('publishes cumulative buckets, sum and count per method, route and status at scrape time', async () => {
    const registry = new Registry();
    const metrics = new HttpMetrics([0.1, 1]);
    for (const metric of metrics.metrics) registry.registerMetric(metric as never);
    metrics.observe('GET', '/health', 200, 0.05);
    metrics.observe('GET', '/health', 200, 0.5);
    metrics.observe('GET', '/health', 200, 3);
    metrics.observe('POST', '/agent/invoke', 422, 0.1);
    const text = await registry.metrics();
    const labels = 'method="GET",route="/health",status="200",ok="true"';
    expect(text).toContain(`http_requests_total{${labels}} 3`);
    expect(text).toContain(`http_request_duration_seconds_bucket{le="0.1",${labels}} 1`);
    expect(text).toContain(`http_request_duration_seconds_bucket{le="1",${labels}} 2`);
    expect(text).toContain(`http_request_duration_seconds_bucket{le="+Inf",${labels}} 3`);
    expect(text).toContain(`http_request_duration_seconds_sum{${labels}} 3.55`);
    expect(text).toContain(`http_request_duration_seconds_count{${labels}} 3`);
    expect(text).toContain(
      'http_request_duration_seconds_bucket{le="0.1",method="POST",route="/agent/invoke",status="422",ok="false"} 1',
    );
    expect(text).toContain('# TYPE http_request_duration_seconds histogram');
    expect(text).toContain('# TYPE http_requests_total counter');
  });

  it('starts with no series', async () => {
    const registry = new Registry();
    for (const metric of new HttpMetrics().metrics) registry.registerMetric(metric as never);
    expect(await registry.metrics()).not.toMatch(/^http_requests_total\{/m);
  });
});
