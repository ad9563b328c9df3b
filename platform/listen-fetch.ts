import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { CliError } from '../cli/index.js';

/** A fetch handler listening on a port. */
export interface FetchListener {
  readonly port: number;
  /** Stops accepting, ends idle connections and waits for the rest. */
  close(): Promise<void>;
}

/**
 * Serves a fetch handler on `host:port` with Node's HTTP server; a port in use is a `failed`
 * error naming it (code `port_in_use`).
 * @param fetch the handler
 * @param address the port (`0` picks one) and the address to listen on
 */
export function listenFetch(
  fetch: (request: Request) => Promise<Response> | Response,
  address: { readonly port: number; readonly host: string },
): Promise<FetchListener> {
  const server = createServer(getRequestListener(fetch));
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      reject(
        error.code === 'EADDRINUSE'
          ? new CliError(
              'failed',
              'port_in_use',
              `port ${address.port} on ${address.host} is in use: pass another --port (0 picks a free one)`,
            )
          : error,
      );
    });
    server.listen(address.port, address.host, () => {
      resolve({
        port: (server.address() as AddressInfo).port,
        close: () =>
          new Promise<void>((closed) => {
            server.close(() => closed());
            server.closeIdleConnections();
          }),
      });
    });
  });
}
