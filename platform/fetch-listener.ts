import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { CliError } from '../cli/library.js';
import { GATEWAY_HEADERS_TIMEOUT_MS, GATEWAY_REQUEST_TIMEOUT_MS } from './platform-defaults.js';

/** A fetch handler listening on a port. */
export interface FetchListener {
  readonly port: number;
  /** Stops accepting, ends idle connections and waits for the rest. */
  close(): Promise<void>;
}

/** Where a {@link listenFetch} listens, and how long a client may take to send a request. */
export interface FetchListenerAddress {
  /** The port; `0` picks a free one. */
  readonly port: number;
  readonly host: string;
  /** How long a client may take to send a request's headers; default {@link GATEWAY_HEADERS_TIMEOUT_MS}. */
  readonly headersTimeoutMs?: number;
  /** How long a client may take to send a whole request, body included; default {@link GATEWAY_REQUEST_TIMEOUT_MS}. */
  readonly requestTimeoutMs?: number;
  /** What to pass for another port when this one is in use, for the refusal; default `--port`. */
  readonly option?: string;
}

/**
 * Serves a fetch handler on `host:port` with Node's HTTP server, which answers 408 and closes a
 * connection whose headers or whole request are not in within the time-outs (a slow client, a
 * slowloris, cannot hold sockets open); a port in use is a `failed` error naming it (code
 * `port_in_use`).
 * @param fetch the handler
 * @param address the port, the address to listen on and the time-outs
 */
export function listenFetch(
  fetch: (request: Request) => Promise<Response> | Response,
  address: FetchListenerAddress,
): Promise<FetchListener> {
  const headersTimeout = address.headersTimeoutMs ?? GATEWAY_HEADERS_TIMEOUT_MS;
  const server = createServer(
    {
      headersTimeout,
      requestTimeout: address.requestTimeoutMs ?? GATEWAY_REQUEST_TIMEOUT_MS,
      // Node checks the time-outs this often (30 s by default, which would let a slow client stay that long).
      connectionsCheckingInterval: Math.min(1_000, headersTimeout),
    },
    getRequestListener(fetch),
  );
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      const option = address.option ?? '--port';
      reject(
        error.code === 'EADDRINUSE'
          ? new CliError(
              'failed',
              'port_in_use',
              `port ${address.port} on ${address.host} is in use: pass another ${option}${option === '--port' ? ' (0 picks a free one)' : ''}`,
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
