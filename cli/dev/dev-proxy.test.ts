import { createServer, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { startDevProxy, type DevProxy, type ProxiedActor } from './dev-proxy.js';

const open: Array<DevProxy | Server> = [];
afterEach(async () => {
  for (const item of open.splice(0))
    await ('closeAllConnections' in item ? new Promise((done) => item.close(done)) : item.close());
});

async function proxyFor(actor: ProxiedActor): Promise<string> {
  const proxy = await startDevProxy(actor, { port: 0, host: '127.0.0.1' });
  open.push(proxy);
  return `http://127.0.0.1:${proxy.port}`;
}

function listen(handler: Parameters<typeof createServer>[1]): Promise<number> {
  const server = createServer(handler);
  open.push(server);
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)),
  );
}

describe('the dev proxy', () => {
  it('passes requests through, body, status and headers included', async () => {
    const port = await listen((request, response) => {
      let body = '';
      request.on('data', (chunk) => (body += chunk));
      request.on('end', () =>
        response
          .writeHead(201, { 'X-Seen': `${request.method} ${request.url} ${request.headers['x-api-key']}` })
          .end(body.toUpperCase()),
      );
    });
    const base = await proxyFor({ port, state: 'running', failure: '' });
    const response = await fetch(`${base}/agent/invoke?x=1`, {
      method: 'POST',
      headers: { 'X-API-Key': 'k' },
      body: 'hello',
    });
    expect(response.status).toBe(201);
    expect(response.headers.get('x-seen')).toBe('POST /agent/invoke?x=1 k');
    expect(await response.text()).toBe('HELLO');
  });

  it('answers a failed start as a 503 problem with the error, and as a self-reloading page to a browser', async () => {
    const base = await proxyFor({ port: 1, state: 'failed', failure: 'SyntaxError: Unexpected token <in client.ts>' });
    const api = await fetch(`${base}/ready`);
    expect(api.status).toBe(503);
    expect(api.headers.get('content-type')).toBe('application/problem+json');
    expect(await api.json()).toMatchObject({
      status: 503,
      code: 'actor_failed_to_start',
      title: 'Actor failed to start',
      detail: 'SyntaxError: Unexpected token <in client.ts>',
    });
    const page = await fetch(`${base}/playground`, { headers: { Accept: 'text/html' } });
    expect(page.status).toBe(503);
    const csp = page.headers.get('content-security-policy') ?? '';
    const nonce = /'nonce-([^']+)'/.exec(csp)?.[1];
    const text = await page.text();
    expect(text).toContain('actor failed to start');
    expect(text).toContain('SyntaxError: Unexpected token &lt;in client.ts&gt;');
    expect(text).toContain(`<script nonce="${nonce}">`);
  });

  it("answers its own route itself, as a Fetch handler, and refuses a body over that route's limit with 413", async () => {
    const port = await listen((request, response) => response.writeHead(200).end(`actor ${request.url}`));
    const seen: string[] = [];
    const proxy = await startDevProxy(
      { port, state: 'running', failure: '' },
      { port: 0, host: '127.0.0.1' },
      {
        path: '/own',
        bodyLimit: 8,
        handle: async (request) => {
          seen.push(`${request.method} ${new URL(request.url).search} ${request.headers.get('x-api-key')}`);
          return Response.json({ body: await request.text() }, { status: 201, headers: { 'X-Own': 'yes' } });
        },
      },
    );
    open.push(proxy);
    const base = `http://127.0.0.1:${proxy.port}`;
    const own = await fetch(`${base}/own?x=1`, { method: 'POST', headers: { 'X-API-Key': 'k' }, body: 'short' });
    expect(own.status).toBe(201);
    expect(own.headers.get('x-own')).toBe('yes');
    expect(await own.json()).toEqual({ body: 'short' });
    expect(seen).toEqual(['POST ?x=1 k']);
    expect(await (await fetch(`${base}/own/more`)).text()).toBe('actor /own/more');
    const tooLong = await fetch(`${base}/own`, { method: 'POST', body: 'x'.repeat(4 * 1024 * 1024) });
    expect(tooLong.status).toBe(413);
    expect(await tooLong.json()).toMatchObject({ code: 'payload_too_large' });
    expect(seen).toHaveLength(1);
  });

  it('fails with port_in_use when the port is taken', async () => {
    const port = await listen(() => undefined);
    await expect(
      startDevProxy({ port: 1, state: 'running', failure: '' }, { port, host: '127.0.0.1' }),
    ).rejects.toMatchObject({
      status: 'failed',
      code: 'port_in_use',
      message: `port ${port} is already in use on 127.0.0.1: stop what listens there or pick another port with --port`,
    });
  });
});
