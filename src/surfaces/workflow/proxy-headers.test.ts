import { describe, expect, it } from 'vitest';
import { proxyRequestHeaders, proxyResponseHeaders, type ForwardedHop } from './proxy-headers.js';

const hop: ForwardedHop = {
  clientAddress: '10.0.0.9',
  proto: 'http',
  host: 'actor.local:8080',
  prefix: '/workflow',
  trustIncoming: false,
  requestId: 'req-1',
};

const incoming = () =>
  new Headers({
    Host: 'actor.local:8080',
    Connection: 'keep-alive, X-Hop-Secret',
    'Keep-Alive': 'timeout=5',
    'X-Hop-Secret': 'dropped',
    TE: 'trailers',
    'Proxy-Authorization': 'Basic cHJveHk6cHc=',
    Upgrade: 'h2c',
    'X-API-Key': 'actor-key',
    'X-Mesh-Key': 'mesh-key',
    Authorization: 'Bearer for-the-workflow-tool',
    Cookie: 'n8n-auth=abc',
    'Accept-Encoding': 'gzip, br',
    'X-Forwarded-For': '6.6.6.6',
    'X-Forwarded-Host': 'spoofed.example',
    'X-Forwarded-Proto': 'https',
    'X-Forwarded-Prefix': '/relay/abc',
    Forwarded: 'for=6.6.6.6',
    'X-Request-Id': 'client-chosen',
    'X-Tenant-Id': 'acme',
    'Content-Type': 'application/json',
  });

describe('proxyRequestHeaders', () => {
  it('drops hop-by-hop headers, Host and the actor credentials, keeps the rest', () => {
    const headers = proxyRequestHeaders(incoming(), hop);
    for (const name of [
      'connection',
      'keep-alive',
      'x-hop-secret',
      'te',
      'proxy-authorization',
      'upgrade',
      'host',
      'x-api-key',
      'x-mesh-key',
      'forwarded',
    ]) {
      expect(headers.has(name), name).toBe(false);
    }
    expect(headers.get('authorization')).toBe('Bearer for-the-workflow-tool');
    expect(headers.get('cookie')).toBe('n8n-auth=abc');
    expect(headers.get('x-tenant-id')).toBe('acme');
    expect(headers.get('content-type')).toBe('application/json');
    expect(headers.get('accept-encoding')).toBe('identity');
    expect(headers.get('x-request-id')).toBe('req-1');
  });

  it('replaces caller-sent X-Forwarded-* with what this hop saw when the caller is not trusted', () => {
    const headers = proxyRequestHeaders(incoming(), hop);
    expect(headers.get('x-forwarded-for')).toBe('10.0.0.9');
    expect(headers.get('x-forwarded-host')).toBe('actor.local:8080');
    expect(headers.get('x-forwarded-proto')).toBe('http');
    expect(headers.get('x-forwarded-prefix')).toBe('/workflow');
  });

  it('extends the X-Forwarded-* chain of a trusted relay', () => {
    const headers = proxyRequestHeaders(incoming(), { ...hop, trustIncoming: true });
    expect(headers.get('x-forwarded-for')).toBe('6.6.6.6, 10.0.0.9');
    expect(headers.get('x-forwarded-host')).toBe('spoofed.example');
    expect(headers.get('x-forwarded-proto')).toBe('https');
    expect(headers.get('x-forwarded-prefix')).toBe('/relay/abc/workflow');
    expect(headers.get('forwarded')).toBe('for=6.6.6.6');
  });

  it('leaves X-Forwarded-For out when nobody knows the client', () => {
    expect(proxyRequestHeaders(new Headers(), { ...hop, clientAddress: undefined }).has('x-forwarded-for')).toBe(false);
  });
});

describe('proxyResponseHeaders', () => {
  const base = new URL('http://n8n.internal:5678/base/');

  it('drops hop-by-hop headers and keeps every Set-Cookie', () => {
    const upstream = new Headers([
      ['Connection', 'close, X-Internal'],
      ['X-Internal', 'x'],
      ['Transfer-Encoding', 'chunked'],
      ['Set-Cookie', 'a=1; Path=/'],
      ['Set-Cookie', 'b=2; Path=/'],
      ['Content-Length', '10'],
    ]);
    const headers = proxyResponseHeaders(upstream, base, '/workflow');
    expect(headers.has('connection') || headers.has('x-internal') || headers.has('transfer-encoding')).toBe(false);
    expect(headers.getSetCookie()).toEqual(['a=1; Path=/', 'b=2; Path=/']);
    expect(headers.get('content-length')).toBe('10');
  });

  it('drops Content-Encoding and Content-Length of a body the Fetch API already decoded', () => {
    const headers = proxyResponseHeaders(
      new Headers({ 'Content-Encoding': 'gzip', 'Content-Length': '20' }),
      base,
      '/workflow',
    );
    expect(headers.has('content-encoding') || headers.has('content-length')).toBe(false);
  });

  it('rewrites a Location inside the upstream to the public prefix and leaves others alone', () => {
    expect(
      proxyResponseHeaders(
        new Headers({ Location: 'http://n8n.internal:5678/base/signin?x=1' }),
        base,
        '/workflow',
      ).get('location'),
    ).toBe('/workflow/signin?x=1');
    expect(
      proxyResponseHeaders(new Headers({ Location: 'https://accounts.example/login' }), base, '/workflow').get(
        'location',
      ),
    ).toBe('https://accounts.example/login');
    expect(
      proxyResponseHeaders(new Headers({ Location: 'http://n8n.internal:5678/other' }), base, '/workflow').get(
        'location',
      ),
    ).toBe('http://n8n.internal:5678/other');
  });
});
