import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { ActorError } from '../../core/actor-error.js';
import { limitRequestBody } from './index.js';

/** An app that echoes the body it read, behind the limit; 413s from `ActorError` become JSON. */
function echoApp(maxSize: number, onError?: Parameters<typeof limitRequestBody>[0]['onError']) {
  const app = new Hono();
  app.use(limitRequestBody({ maxSize, ...(onError === undefined ? {} : { onError }) }));
  app.all('/', async (c) => c.text(`read:${await c.req.text()}`));
  app.onError((error) => {
    if (error instanceof ActorError)
      return Response.json({ code: error.code, detail: error.detail }, { status: error.status });
    throw error;
  });
  return app;
}

/** A body stream of `chunks`, recording how many times it was pulled. */
function trackedBody(chunks: readonly string[]) {
  const state = { pulls: 0 };
  let index = 0;
  const body = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        state.pulls += 1;
        if (index < chunks.length) controller.enqueue(new TextEncoder().encode(chunks[index++]));
        else controller.close();
      },
    },
    { highWaterMark: 0 },
  );
  return { body, state };
}

const post = (body: BodyInit, headers: Record<string, string> = {}) =>
  new Request('http://actor.test/', { method: 'POST', body, headers, duplex: 'half' } as RequestInit);

describe('limitRequestBody', () => {
  it('refuses a declared Content-Length over the limit with the 413 problem, without reading the body', async () => {
    const { body, state } = trackedBody(['x'.repeat(20)]);
    const response = await echoApp(10).request(post(body, { 'content-length': '20' }));
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({ code: 'payload_too_large', detail: 'The body must be at most 10 bytes' });
    expect(state.pulls).toBe(0);
  });

  it('passes a declared Content-Length at the limit and leaves the body whole for the route', async () => {
    const response = await echoApp(10).request(post('0123456789', { 'content-length': '10' }));
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('read:0123456789');
  });

  it('counts a chunked body (no Content-Length) as it reads it: over the limit is a 413', async () => {
    const { body } = trackedBody(['12345', '67890', 'X']);
    const response = await echoApp(10).request(post(body));
    expect(response.status).toBe(413);
  });

  it('passes a chunked body within the limit with every byte', async () => {
    const { body } = trackedBody(['12345', '67890']);
    const response = await echoApp(10).request(post(body));
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('read:1234567890');
  });

  it('judges by the stream, not the header, when Transfer-Encoding is present', async () => {
    const { body } = trackedBody(['12345', '67890', 'X']);
    const response = await echoApp(10).request(post(body, { 'content-length': '3', 'transfer-encoding': 'chunked' }));
    expect(response.status).toBe(413);
  });

  it('lets GET and HEAD through untouched', async () => {
    const app = echoApp(0);
    expect((await app.request('http://actor.test/')).status).toBe(200);
    expect((await app.request('http://actor.test/', { method: 'HEAD' })).status).toBe(200);
  });

  it('answers with onError when given', async () => {
    const response = await echoApp(4, (c) => c.json({ mine: true }, 413)).request(
      post('too long', { 'content-length': '8' }),
    );
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({ mine: true });
  });
});

describe('limitRequestBody under @hono/node-server', () => {
  it('leaves the light request unbuilt, so the route reads the socket directly', async () => {
    const { serve } = await import('@hono/node-server');
    // @hono/node-server keeps the full Fetch Request, once something makes it build one, under this symbol.
    const builtRequest = (request: Request) =>
      Object.getOwnPropertySymbols(request).some((symbol) => symbol.description === 'requestCache');
    const seen: boolean[] = [];
    const app = new Hono();
    app.use(limitRequestBody({ maxSize: 1024 }));
    app.post('/:touch', async (c) => {
      // The control: touching `body` builds the full request, so the probe can tell the two apart.
      if (c.req.param('touch') === 'touch') void c.req.raw.body;
      seen.push(builtRequest(c.req.raw));
      return c.text(`read:${await c.req.text()}`);
    });
    const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
    try {
      await new Promise((resolve) => server.once('listening', resolve));
      const { port } = server.address() as { port: number };
      for (const path of ['plain', 'touch']) {
        const response = await fetch(`http://127.0.0.1:${port}/${path}`, {
          method: 'POST',
          body: 'hello',
          headers: { 'content-type': 'text/plain' },
        });
        expect(await response.text()).toBe('read:hello');
      }
      expect(seen).toEqual([false, true]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
