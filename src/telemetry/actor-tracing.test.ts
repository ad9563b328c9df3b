import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLogger, createMemorySink } from '../log/logger.js';
import { readFileSync } from 'node:fs';
import { ActorTracing } from './actor-tracing.js';
import { TRACING_PACKAGES } from './otel-tracer.js';
import type { TracingConfig } from './tracing-config.js';
import { startOtlpReceiver } from '../../test/telemetry/otlp-receiver.js';

const config: TracingConfig = {
  tracesUrl: 'http://127.0.0.1:1/v1/traces',
  protocol: 'http/json',
  headers: {},
  sampler: 'always_on',
  samplerRatio: 1,
  service: { name: 'test-actor', version: '1.0.0', instanceId: 'i-1' },
};

afterEach(() => {
  vi.doUnmock('@opentelemetry/api');
  vi.doUnmock('@opentelemetry/sdk-trace');
  vi.resetModules();
});

describe('the OpenTelemetry packages', () => {
  it('are the optional peers package.json declares (and develops against), at the ranges the install line names', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as Record<
      string,
      Record<string, unknown>
    >;
    const named = Object.fromEntries(
      TRACING_PACKAGES.map((spec) => [spec.slice(0, spec.lastIndexOf('@')), spec.slice(spec.lastIndexOf('@') + 1)]),
    );
    const ofOpenTelemetry = (deps: Record<string, unknown> | undefined) =>
      Object.fromEntries(Object.entries(deps ?? {}).filter(([name]) => name.startsWith('@opentelemetry/')));
    // prom-client already brings @opentelemetry/api into every actor: a peer range narrower than its
    // own would replace that copy with an older, larger one even in actors without traces.
    expect(ofOpenTelemetry(pkg.peerDependencies)).toEqual({ ...named, '@opentelemetry/api': '^1.3.0' });
    expect(ofOpenTelemetry(pkg.devDependencies)).toEqual(named);
    expect(Object.keys(ofOpenTelemetry(pkg.peerDependenciesMeta))).toEqual(Object.keys(named).sort());
    expect(ofOpenTelemetry(pkg.dependencies)).toEqual({});
  });
});

describe('ActorTracing', () => {
  it('loads nothing of OpenTelemetry when it is not configured', async () => {
    let loaded = false;
    vi.doMock('@opentelemetry/api', () => {
      loaded = true;
      return {};
    });
    const sink = createMemorySink();
    const tracing = new ActorTracing(undefined, createLogger({ sink }));
    await tracing.start();
    const span = tracing.startSpan('chat m', { kind: 'client' });
    expect(span.run(() => 42)).toBe(42);
    expect(tracing.enabled).toBe(false);
    expect(tracing.traceHeaders()).toEqual({});
    expect(loaded).toBe(false);
    expect(sink.records).toEqual([]);
    await tracing.shutdown();
  });

  it('logs tracer_unavailable with the install line when a package is missing, and records nothing', async () => {
    vi.doMock('@opentelemetry/sdk-trace', () => {
      throw new Error(
        "Cannot find package '@opentelemetry/sdk-trace' imported from /app/node_modules/actorkit/dist/src/telemetry/otel-tracer.js",
      );
    });
    // vi.doMock queues the mock until the next import through the mocker: this one, before the
    // tracer's six imports at once (one of which could otherwise start before the queue is read).
    await expect(import('@opentelemetry/sdk-trace')).rejects.toThrow();
    const sink = createMemorySink();
    const tracing = new ActorTracing(config, createLogger({ sink }));
    await tracing.start();
    expect(tracing.enabled).toBe(false);
    const line = sink.records.find((record) => record.event === 'tracer_unavailable');
    expect(line).toMatchObject({
      level: 'error',
      missing: '@opentelemetry/sdk-trace',
      install: expect.stringContaining('npm install @opentelemetry/api@~1.9.0 '),
    });
    await tracing.shutdown();
  });

  it('starts, traces and injects traceparent when configured, and says so once', async () => {
    const receiver = await startOtlpReceiver();
    const sink = createMemorySink();
    const tracing = new ActorTracing(
      { ...config, tracesUrl: `${receiver.endpoint}/v1/traces` },
      createLogger({ sink }),
    );
    await Promise.all([tracing.start(), tracing.start()]);
    expect(tracing.enabled, JSON.stringify(sink.records)).toBe(true);
    const span = tracing.startSpan('invoke_agent a', { kind: 'internal' });
    const headers = span.run(() => tracing.traceHeaders());
    expect(headers.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    expect(tracing.traceHeaders()).toEqual({});
    span.end();
    expect(sink.records.filter((record) => record.event === 'tracer_started')).toEqual([
      expect.objectContaining({
        level: 'info',
        url: `${receiver.endpoint}/v1/traces`,
        protocol: 'http/json',
        service_name: 'test-actor',
        sampler: 'always_on',
      }),
    ]);
    await tracing.shutdown();
    expect(tracing.enabled).toBe(false);
    expect(receiver.spans.map((received) => [received.name, received.traceId])).toEqual([
      ['invoke_agent a', headers.traceparent!.split('-')[1]],
    ]);
    await receiver.close();
  });

  it('times every span on one clock: a span started after another ended starts after it, and a child ends within its parent', async () => {
    // The SDK on its own anchors each span to Date.now() (whole milliseconds) when it starts, so
    // two spans within the same millisecond could be reported out of order by up to 1 ms.
    const receiver = await startOtlpReceiver();
    const tracing = new ActorTracing(
      { ...config, tracesUrl: `${receiver.endpoint}/v1/traces` },
      createLogger({ sink: createMemorySink() }),
    );
    await tracing.start();
    for (let round = 0; round < 100; round += 1) {
      const parent = tracing.startSpan(`parent ${round}`, { kind: 'server' });
      parent.run(() => tracing.startSpan(`child ${round}`, { kind: 'internal' })).end();
      parent.end();
      tracing.startSpan(`next ${round}`, { kind: 'internal' }).end();
    }
    await tracing.shutdown();
    const named = new Map(receiver.spans.map((span) => [span.name, span]));
    expect(named.size).toBe(300);
    const outOfOrder: string[] = [];
    for (let round = 0; round < 100; round += 1) {
      const [parent, child, next] = [
        named.get(`parent ${round}`)!,
        named.get(`child ${round}`)!,
        named.get(`next ${round}`)!,
      ];
      expect(child.parentSpanId).toBe(parent.spanId);
      if (child.startNanos < parent.startNanos || child.endNanos > parent.endNanos)
        outOfOrder.push(`child ${round} outside its parent`);
      if (next.startNanos < parent.endNanos) outOfOrder.push(`next ${round} starts before parent ${round} ended`);
    }
    expect(outOfOrder).toEqual([]);
    await receiver.close();
  });

  it('shuts down within its bound when the collector is down, and says why instead of throwing', async () => {
    const sink = createMemorySink();
    const tracing = new ActorTracing(config, createLogger({ sink }), { exportAtShutdownMs: 300 });
    await tracing.start();
    tracing.startSpan('chat m', { kind: 'client' }).end();
    const started = Date.now();
    await tracing.shutdown();
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(sink.records.find((record) => record.event === 'tracer_diagnostic')).toMatchObject({
      level: 'warn',
      message: expect.stringContaining('spans not exported at shutdown'),
    });
  });
});
