import { createAdaptorServer } from '@hono/node-server';
import type { AddressInfo } from 'node:net';

/** Serves a fetch handler (the platform gateway) on a loopback port; resolves with its URL and a closer. */
export async function serveOnLoopbackPort(
  fetch: (request: Request) => Promise<Response>,
): Promise<{ url: string; close(): Promise<void> }> {
  const server = createAdaptorServer({ fetch, hostname: '127.0.0.1' }) as import('node:http').Server;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
