import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchModelTransport, type ModelHttpTransport } from '../../src/agent/model-http-transport.js';
import { loadNodeModelTransport } from '../../src/agent/node-model-transport.js';

/** A real HTTP server on loopback that counts the connections it accepted; the path says how it answers. */
async function startServer(
  keepAliveTimeoutMs: number,
): Promise<{ server: Server; url: (path: string) => URL; connections: () => number }> {
  let connections = 0;
  const server = createServer(async (request: IncomingMessage, response: ServerResponse) => {
    const hash = createHash('sha256');
    let bytes = 0;
    for await (const piece of request as AsyncIterable<Buffer>) {
      hash.update(piece);
      bytes += piece.length;
    }
    const echo = JSON.stringify({
      bytes,
      sha256: hash.digest('hex'),
      contentLength: request.headers['content-length'] ?? null,
    });
    switch (request.url) {
      case '/close':
        response.writeHead(200, { 'content-type': 'application/json', connection: 'close' }).end(echo);
        return;
      case '/break':
        response.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
        response.write('{"choices": [');
        setTimeout(() => response.socket?.destroy(), 20);
        return;
      case '/hang':
        return;
      case '/moved':
        response.writeHead(308, { location: '/echo' }).end();
        return;
      case '/away':
        response.writeHead(307, { location: `http://localhost:${(server.address() as AddressInfo).port}/echo` }).end();
        return;
      case '/loop':
        response.writeHead(308, { location: '/loop' }).end();
        return;
      default:
        response.writeHead(200, { 'content-type': 'application/json', 'x-answer': 'yes' }).end(echo);
    }
  });
  server.on('connection', () => (connections += 1));
  server.keepAliveTimeout = keepAliveTimeoutMs;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, url: (path) => new URL(`http://127.0.0.1:${port}${path}`), connections: () => connections };
}

const close = (server: Server) => {
  server.closeAllConnections();
  return new Promise<void>((resolve) => server.close(() => resolve()));
};

const nodeTransport = loadNodeModelTransport();

describe.each([
  { name: 'node:http', transport: nodeTransport! },
  { name: 'fetch', transport: fetchModelTransport() },
])(
  'the model transport over $name, against a real server on loopback',
  ({ transport }: { transport: ModelHttpTransport }) => {
    let served: Awaited<ReturnType<typeof startServer>>;
    let idleClosing: Awaited<ReturnType<typeof startServer>>;
    beforeAll(async () => {
      served = await startServer(60_000);
      idleClosing = await startServer(50);
    });
    afterAll(async () => {
      await close(served.server);
      await close(idleClosing.server);
    });

    const post = (url: URL, body = '{"model":"m"}', signal = new AbortController().signal) =>
      transport({ url, headers: { 'content-type': 'application/json' }, body, signal });

    it('sends a body far larger than one TCP write whole, with its length in bytes', async () => {
      const body = JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'é∑ ok '.repeat(400_000) }] });
      const answer = await post(served.url('/echo'), body);
      const bytes = Buffer.byteLength(body);
      expect(bytes).toBeGreaterThan(2_000_000);
      expect(answer.status).toBe(200);
      expect(answer.header('x-answer')).toBe('yes');
      expect(JSON.parse(answer.body)).toEqual({
        bytes,
        sha256: createHash('sha256').update(body).digest('hex'),
        contentLength: String(bytes),
      });
    });

    it('reuses one keep-alive connection across calls', async () => {
      await post(served.url('/echo'));
      const before = served.connections();
      for (let call = 0; call < 5; call += 1) expect((await post(served.url('/echo'))).status).toBe(200);
      expect(served.connections()).toBe(before);
    });

    it('opens a new connection after the server closed the last one, and after the server dropped it as idle', async () => {
      expect((await post(served.url('/close'))).status).toBe(200);
      expect((await post(served.url('/echo'))).status).toBe(200);

      expect((await post(idleClosing.url('/echo'))).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect((await post(idleClosing.url('/echo'))).status).toBe(200);
      expect(idleClosing.connections()).toBe(2);
    });

    it('rejects when the connection breaks before the answer ends', async () => {
      await expect(post(served.url('/break'))).rejects.toThrow();
      expect((await post(served.url('/echo'))).status).toBe(200);
    });

    it('rejects with the reason of its signal when the time-out aborts a call that gets no answer', async () => {
      const controller = new AbortController();
      const timeout = new Error('model call timed out');
      setTimeout(() => controller.abort(timeout), 100);
      const started = performance.now();
      await expect(post(served.url('/hang'), '{}', controller.signal)).rejects.toSatisfy(
        (error) => error === timeout || (error as Error).name === 'AbortError',
      );
      expect(performance.now() - started).toBeLessThan(2_000);
    });
  },
);

describe('the node:http transport', () => {
  let served: Awaited<ReturnType<typeof startServer>>;
  beforeAll(async () => {
    served = await startServer(60_000);
  });
  afterAll(() => close(served.server));

  it('is what Node gets, made once per process', () => {
    expect(nodeTransport).toBeTypeOf('function');
    expect(loadNodeModelTransport()).toBe(nodeTransport);
  });

  it('repeats the POST, body and all, where a 307 or 308 to the same host points, a few times at most, and not to another host', async () => {
    const post = (path: string) =>
      nodeTransport!({
        url: served.url(path),
        headers: { authorization: 'Bearer sk-redirected' },
        body: '{"model":"m"}',
        signal: new AbortController().signal,
      });
    const moved = await post('/moved');
    expect(moved.status).toBe(200);
    expect(JSON.parse(moved.body)).toMatchObject({ bytes: 13 });
    expect((await post('/away')).status).toBe(307);
    expect((await post('/loop')).status).toBe(308);
  });
});
