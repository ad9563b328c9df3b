import { createConnection, createServer, type Socket } from 'node:net';

/**
 * A loopback TCP proxy in front of a server (a database), whose link can be cut (connections
 * reset, new ones refused) or paused (a network partition: connections stay open, nothing goes
 * through either way, new ones are accepted and hang).
 */
export interface TcpProxy {
  readonly port: number;
  /** Resets every open connection and refuses new ones until `restore()`. */
  cut(): void;
  restore(): void;
  /** Stops forwarding bytes, both ways, on every connection (new ones included) until `resume()`; nothing is lost or reset. */
  pause(): void;
  resume(): void;
  /**
   * Leaves every connection open now silent for good (as after a firewall or NAT forgot them:
   * open, nothing through, never reset); connections made afterwards go through.
   */
  abandon(): void;
  close(): Promise<void>;
}

/** Most connections the proxy holds at once; more are reset (a bound, so a leaking client cannot exhaust the machine). */
const MAX_CONNECTIONS = 200;

/**
 * Forwards `from`'s bytes to `to` while the link is not paused. Bytes are read only while
 * forwarding (a paused socket leaves them in the kernel, so the sender's TCP window fills as in
 * a partition), and the proxy never holds more than one chunk per direction.
 */
function forward(from: Socket, to: Socket, isPaused: (socket: Socket) => boolean): void {
  from.on('data', (chunk) => {
    if (!to.write(chunk)) {
      from.pause();
      to.once('drain', () => {
        if (!isPaused(from)) from.resume();
      });
    }
  });
}

/** Starts a proxy on 127.0.0.1 (random port) forwarding to `host:port`. */
export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const open = new Set<Socket>();
  const abandoned = new WeakSet<Socket>();
  let cut = false;
  let paused = false;
  const isPaused = (socket: Socket) => paused || abandoned.has(socket);
  const server = createServer({ pauseOnConnect: true }, (client) => {
    if (cut || open.size >= MAX_CONNECTIONS) {
      client.resetAndDestroy();
      return;
    }
    const upstream = createConnection(target);
    if (paused) upstream.pause();
    for (const socket of [client, upstream]) {
      open.add(socket);
      socket.on('close', () => open.delete(socket));
      socket.on('error', () => {});
    }
    forward(client, upstream, isPaused);
    forward(upstream, client, isPaused);
    client.on('end', () => upstream.end());
    upstream.on('end', () => client.end());
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    if (!paused) client.resume();
  });
  server.maxConnections = MAX_CONNECTIONS;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the proxy has no TCP address');
  return {
    port: address.port,
    cut() {
      cut = true;
      for (const socket of open) socket.resetAndDestroy();
    },
    restore() {
      cut = false;
    },
    pause() {
      paused = true;
      for (const socket of open) socket.pause();
    },
    resume() {
      paused = false;
      for (const socket of open) if (!abandoned.has(socket)) socket.resume();
    },
    abandon() {
      for (const socket of open) {
        abandoned.add(socket);
        socket.pause();
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of open) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
