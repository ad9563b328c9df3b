import { createServer } from 'node:net';

/** A TCP port on 127.0.0.1 that was free a moment ago: the system picks it (port 0) and it is released at once. */
export function freeLocalPort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address !== null ? resolvePort(address.port) : reject(new Error('no free port')),
      );
    });
    server.once('error', reject);
  });
}
