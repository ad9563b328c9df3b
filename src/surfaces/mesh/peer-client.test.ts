import { describe, expect, it } from 'vitest';
import { createPeerClient } from './peer-client.js';
import { PeerRequestError } from './peer-request-error.js';

type Seen = { url: string; headers: Headers; redirect: RequestRedirect | undefined };

function stubFetch(answer: (url: string) => Response | Promise<Response>): typeof fetch & { seen: Seen[] } {
  const seen: Seen[] = [];
  const stub = (async (input: string | URL | Request, init?: RequestInit) => {
    seen.push({ url: String(input), headers: new Headers(init?.headers), redirect: init?.redirect });
    return answer(String(input));
  }) as typeof fetch & { seen: Seen[] };
  stub.seen = seen;
  return stub;
}

function hang(signal: AbortSignal): Promise<Response> {
  return new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
}

const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
const options = { baseUrl: 'http://peer.test:8080/prefix/', domain: 'weather', meshKey: 'k-123' };

async function failure(promise: Promise<unknown>): Promise<PeerRequestError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(PeerRequestError);
  return error as PeerRequestError;
}

describe('createPeerClient', () => {
  it('sends the mesh key, tenant and request id, never follows redirects, and parses JSON', async () => {
    const fetch = stubFetch(() => json({ temp: 3 }));
    const client = createPeerClient({ ...options, fetch, apiKey: 'api-1' });
    expect(
      await client.get('/forecast/oslo', { query: { days: 2, exact: true }, tenantId: 'acme', requestId: 'r-1' }),
    ).toEqual({ temp: 3 });
    const [request] = fetch.seen;
    expect(request!.url).toBe('http://peer.test:8080/prefix/api/weather/forecast/oslo?days=2&exact=true');
    expect(request!.headers.get('x-mesh-key')).toBe('k-123');
    expect(request!.headers.get('x-api-key')).toBe('api-1');
    expect(request!.headers.get('x-tenant-id')).toBe('acme');
    expect(request!.headers.get('x-request-id')).toBe('r-1');
    expect(request!.redirect).toBe('manual');
    await client.check();
    expect(fetch.seen[1]!.url).toBe('http://peer.test:8080/prefix/api/weather/_peer_check');
  });

  it('refuses paths that leave /api/<domain>/, and keeps a leading // inside it', async () => {
    const fetch = stubFetch(() => json({}));
    const client = createPeerClient({ ...options, fetch });
    for (const path of [
      '../secret',
      '/a/../../secret',
      'https://evil.test/x',
      '%2e%2e/secret',
      'a/%2E%2E/%2e%2e/secret',
    ]) {
      await expect(client.get(path), path).rejects.toThrow(/leaves \/api\/weather\//);
    }
    expect(fetch.seen).toEqual([]);
    await client.get('//evil.test/x');
    expect(fetch.seen[0]!.url).toBe('http://peer.test:8080/prefix/api/weather/evil.test/x');
  });

  it('turns a 401 into peer_rejected and other errors into peer_error with the peer problem', async () => {
    const rejected = await failure(
      createPeerClient({ ...options, fetch: stubFetch(() => json({ code: 'invalid_mesh_key' }, 401)) }).check(),
    );
    expect(rejected).toMatchObject({
      status: 502,
      code: 'peer_rejected',
      peerStatus: 401,
      peerCode: 'invalid_mesh_key',
    });
    const broken = await failure(
      createPeerClient({
        ...options,
        fetch: stubFetch(() => json({ code: 'store_unavailable', detail: 'db down' }, 503)),
      }).get('x'),
    );
    expect(broken).toMatchObject({ status: 502, code: 'peer_error', peerStatus: 503, peerCode: 'store_unavailable' });
    expect(broken.detail).toBe('The peer answered HTTP 503 store_unavailable: db down');
    const redirected = await failure(
      createPeerClient({
        ...options,
        fetch: stubFetch(() => new Response(null, { status: 302, headers: { Location: 'http://evil.test/' } })),
      }).get('x'),
    );
    expect(redirected).toMatchObject({ code: 'peer_error', peerStatus: 302 });
  });

  it('turns a non-JSON body into peer_invalid_response', async () => {
    const error = await failure(
      createPeerClient({ ...options, fetch: stubFetch(() => new Response('<html>')) }).get('x'),
    );
    expect(error).toMatchObject({ status: 502, code: 'peer_invalid_response' });
  });

  it('turns a network failure into peer_unavailable and a hang into peer_timeout', async () => {
    const down = stubFetch(() =>
      Promise.reject(new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED') })),
    );
    const unavailable = await failure(createPeerClient({ ...options, fetch: down }).get('x'));
    expect(unavailable).toMatchObject({ status: 502, code: 'peer_unavailable' });
    expect(unavailable.detail).toContain('ECONNREFUSED');
    const slow = (async (_input: unknown, init?: RequestInit) => hang(init!.signal!)) as typeof fetch;
    const timedOut = await failure(createPeerClient({ ...options, timeoutMs: 20, fetch: slow }).get('x'));
    expect(timedOut).toMatchObject({ status: 504, code: 'peer_timeout' });
  });

  it("rethrows the caller's own abort as is", async () => {
    const slow = (async (_input: unknown, init?: RequestInit) => hang(init!.signal!)) as typeof fetch;
    const caller = new AbortController();
    const pending = createPeerClient({ ...options, fetch: slow }).get('x', { signal: caller.signal });
    caller.abort(new Error('user left'));
    await expect(pending).rejects.toThrow('user left');
  });

  it('refuses bad options at once', () => {
    expect(() => createPeerClient({ ...options, meshKey: '' })).toThrow(/mesh key/);
    expect(() => createPeerClient({ ...options, meshKey: 'a,b' })).toThrow(/one non-empty/);
    expect(() => createPeerClient({ ...options, domain: '../x' })).toThrow(/must be/);
    expect(() => createPeerClient({ ...options, timeoutMs: 0 })).toThrow(/timeoutMs/);
    expect(() => createPeerClient({ ...options, baseUrl: 'ftp://peer.test' })).toThrow(/http/);
    expect(() => createPeerClient({ ...options, baseUrl: 'not a url' })).toThrow();
  });
});
