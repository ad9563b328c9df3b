import { request } from 'node:http';
import { listenOnLoopback, type LoopbackServer } from '../../surfaces/loopback.js';

/**
 * A load balancer on loopback that sends each HTTP request to the next of `backends` in turn
 * (per request, not per connection, so a keep-alive client still meets every backend).
 * @param backends `http://127.0.0.1:<port>` of each backend
 */
export function startRoundRobinProxy(backends: readonly string[]): Promise<LoopbackServer> {
  let next = 0;
  return listenOnLoopback((incoming, outgoing) => {
    const backend = new URL(backends[next++ % backends.length]!);
    const forwarded = request(
      {
        host: backend.hostname,
        port: backend.port,
        method: incoming.method,
        path: incoming.url,
        headers: incoming.headers,
      },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    forwarded.on('error', () => outgoing.destroy());
    incoming.pipe(forwarded);
  });
}
