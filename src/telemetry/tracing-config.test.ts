import { describe, expect, it } from 'vitest';
import { parseEnvironment } from '../environment/parse-environment.js';
import { StartupRefusal } from '../environment/startup-refusal.js';
import { tracingConfigOf } from './tracing-config.js';

const actor = { slug: 'hello-actor', version: '1.0.0', instanceId: 'i-1' };
const configOf = (env: Record<string, string>) => tracingConfigOf(parseEnvironment(env), actor);

describe('tracingConfigOf', () => {
  it('is undefined without OTEL_EXPORTER_OTLP_ENDPOINT: no traces', () => {
    expect(configOf({})).toBeUndefined();
    expect(configOf({ OTEL_SERVICE_NAME: 'x', OTEL_EXPORTER_OTLP_HEADERS: 'a=b' })).toBeUndefined();
  });

  it('adds /v1/traces to the endpoint and reads the standard variables', () => {
    expect(configOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://jaeger:4318/' })).toEqual({
      tracesUrl: 'http://jaeger:4318/v1/traces',
      protocol: 'http/protobuf',
      headers: {},
      sampler: 'parentbased_always_on',
      samplerRatio: 1,
      service: { name: 'hello-actor', version: '1.0.0', instanceId: 'i-1' },
    });
    expect(
      configOf({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'https://otlp.example/otel',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'HTTP/JSON',
        OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%20abc, x-team = a%2Cb',
        OTEL_SERVICE_NAME: 'support-bot',
        OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
        OTEL_TRACES_SAMPLER_ARG: '0.25',
      }),
    ).toMatchObject({
      tracesUrl: 'https://otlp.example/otel/v1/traces',
      protocol: 'http/json',
      headers: { authorization: 'Bearer abc', 'x-team': 'a,b' },
      sampler: 'parentbased_traceidratio',
      samplerRatio: 0.25,
      service: { name: 'support-bot' },
    });
  });

  it('refuses to start on a value it cannot use, naming the variable and never a header value', () => {
    const refusal = (env: Record<string, string>) => {
      try {
        parseEnvironment(env);
      } catch (error) {
        return error instanceof StartupRefusal ? error.message : `not a refusal: ${String(error)}`;
      }
      return 'accepted';
    };
    expect(refusal({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toMatch(
      /OTEL_EXPORTER_OTLP_PROTOCOL must be one of http\/protobuf, http\/json, got "grpc"/,
    );
    expect(refusal({ OTEL_EXPORTER_OTLP_ENDPOINT: 'jaeger:4318' })).toMatch(
      /OTEL_EXPORTER_OTLP_ENDPOINT must be an http\(s\) URL/,
    );
    expect(refusal({ OTEL_TRACES_SAMPLER: 'sometimes' })).toMatch(/OTEL_TRACES_SAMPLER must be one of always_on/);
    expect(refusal({ OTEL_TRACES_SAMPLER_ARG: '2' })).toMatch(/OTEL_TRACES_SAMPLER_ARG must be a number from 0 to 1/);
    const headers = refusal({ OTEL_EXPORTER_OTLP_HEADERS: 'authorization: Bearer sekrit-token' });
    expect(headers).toMatch(/OTEL_EXPORTER_OTLP_HEADERS must be key=value pairs/);
    expect(headers).not.toContain('sekrit');
  });
});
