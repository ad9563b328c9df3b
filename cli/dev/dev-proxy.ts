import { connect, type Socket } from 'node:net';
import {
  createServer,
  request,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { html, raw } from 'hono/html';
import { connectionScopedHeaders, htmlPageHeaders, randomNonce } from '../../src/http/index.js';
import {
  ActorError,
  type ProblemCode,
  PROBLEM_CONTENT_TYPE,
  problemDocument,
  problemResponse,
  readyRoute,
} from '../../src/index.js';
import { CliError } from '../cli-error.js';
import type { WatchedActorState } from './watched-actor.js';

/** What the dev proxy asks of the actor behind it. */
export interface ProxiedActor {
  /** The port the actor listens on (on 127.0.0.1). */
  readonly port: number;
  readonly state: WatchedActorState;
  /** The condensed error output of a failed start. */
  readonly failure: string;
}

/** A route the dev process answers itself, before the actor sees the request: a Fetch handler on one exact path. */
export interface DevOwnRoute {
  readonly path: string;
  /** The largest body it reads; a longer one is answered 413. */
  readonly bodyLimit: number;
  handle(request: Request): Promise<Response>;
}

/** A running dev proxy. */
export interface DevProxy {
  /** The port it listens on (the one asked for, or the one picked for port 0). */
  readonly port: number;
  /** Stops accepting connections and closes the open ones. */
  close(): Promise<void>;
}

/** How long a request waits for a (re)starting actor before it is answered 503 `actor_starting`. */
const START_WAIT_MS = 30_000;
/** How long a request waits when the actor has failed: a save may be fixing it right now. */
const FAILED_WAIT_MS = 500;
const RETRY_EVERY_MS = 100;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Node's parsed headers of one hop without those of its connection ({@link connectionScopedHeaders}),
 * except `Expect`: this proxy passes `Expect: 100-continue` on, so that the actor's own `100
 * Continue`, or its 413 before the body, reaches the client (see `forwardOnce`).
 */
function withoutHopByHop(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const connection = headers.connection;
  const drop = connectionScopedHeaders(Array.isArray(connection) ? connection.join(',') : connection);
  drop.delete('expect');
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !drop.has(name.toLowerCase())));
}

/** How one attempt to pass a request on ended. */
type Forwarded =
  /** The actor answered (its answer is passed on), or the client went away. */
  | 'answered'
  /** Nothing listens on the actor's port yet, and nothing of the request was sent: it may be tried again. */
  | 'not_listening'
  /** The actor's connection broke after part of the request was passed on: it cannot be sent again. */
  | 'lost';

/**
 * A connection to the actor whose failed writes (single or corked, as a chunked body's are) are
 * dropped instead of tearing it down: an actor that answers before reading the whole body (413)
 * closes its connection, and the rest of the body written into it fails — Node would then close the socket with that answer unread in it
 * (the client got nothing). The answer is read, then the close; the request's own error follows
 * from the close when no answer came.
 */
function connectToActor(port: number): Socket {
  const socket = connect({ host: '127.0.0.1', port });
  let failed = false;
  const dropFailure = (done: (error?: Error | null) => void) => (error?: Error | null) => {
    if (error) failed = true;
    done();
  };
  // Both paths of a write: one piece (`_write`), or several corked together (`_writev`: a chunked body).
  const write = socket._write.bind(socket);
  socket._write = (chunk: unknown, encoding: BufferEncoding, done: (error?: Error | null) => void) =>
    failed ? done() : write(chunk, encoding, dropFailure(done));
  const writeMany = socket._writev?.bind(socket);
  if (writeMany)
    socket._writev = (
      chunks: Array<{ chunk: unknown; encoding: BufferEncoding }>,
      done: (error?: Error | null) => void,
    ) => (failed ? done() : writeMany(chunks, dropFailure(done)));
  return socket;
}

/** How long the rest of a body the actor answered early is read (and dropped) before the client's connection is closed. */
const LINGER_MS = 5_000;

/**
 * Reads and drops the rest of a body the actor answered before reading it all (a 413), so the
 * client reads that answer rather than a reset connection; a body that has not ended within
 * `LINGER_MS` (a client that waits for `100 Continue`, or sends on and on) ends the connection.
 */
function dropRestOfBody(incoming: IncomingMessage): void {
  const timer = setTimeout(() => incoming.socket.destroy(), LINGER_MS);
  incoming.once('end', () => clearTimeout(timer));
  incoming.once('close', () => clearTimeout(timer));
  incoming.resume();
}

/**
 * Sends one request to the actor, its body streamed through as it arrives (never held in
 * memory). The body starts once the connection is open (or the actor sent `100 Continue`), so a
 * refused connection leaves the request untouched for the next try. An answer that comes before
 * the body was passed on in full (a 413) goes to the client at once, however the actor closes
 * its connection (see `connectToActor`); the rest of the body is dropped (see `dropRestOfBody`).
 */
function forwardOnce(actor: ProxiedActor, incoming: IncomingMessage, outgoing: ServerResponse): Promise<Forwarded> {
  return new Promise((resolve) => {
    const expectsContinue = incoming.headers.expect !== undefined;
    let bodyStarted = false;
    let answered = false;
    const upstream = request(
      {
        host: '127.0.0.1',
        port: actor.port,
        method: incoming.method,
        path: incoming.url,
        headers: withoutHopByHop(incoming.headers),
        createConnection: () => connectToActor(actor.port),
      },
      (answer) => {
        answered = true;
        if (!incoming.complete) {
          incoming.unpipe(upstream);
          dropRestOfBody(incoming);
        }
        outgoing.writeHead(answer.statusCode ?? 502, withoutHopByHop(answer.headers));
        outgoing.flushHeaders();
        answer.pipe(outgoing);
        answer.on('end', () => resolve('answered'));
        // The actor's connection may break right after a whole answer (a 413 closing it): pass that answer on.
        answer.on('error', () => {
          if (answer.complete) outgoing.end();
          else outgoing.destroy();
          resolve('answered');
        });
      },
    );
    const sendBody = () => {
      if (answered || upstream.destroyed) return;
      bodyStarted = true;
      if (expectsContinue) outgoing.writeContinue();
      incoming.pipe(upstream);
    };
    // `Expect: 100-continue` goes on to the actor, whose `100 Continue` goes back to the client.
    if (expectsContinue) upstream.once('continue', sendBody);
    else upstream.once('socket', (socket) => socket.once('connect', sendBody));
    // A client that goes away aborts the actor's work (a streamed model call stops).
    const abort = () => upstream.destroy();
    outgoing.once('close', abort);
    upstream.once('close', () => outgoing.off('close', abort));
    upstream.on('error', (error: NodeJS.ErrnoException) => {
      // Writing the rest of a body the actor refused may fail: its answer is already on its way.
      if (answered) return;
      if (outgoing.destroyed) resolve('answered');
      else if (!bodyStarted && (error.code === 'ECONNREFUSED' || error.code === 'ECONNRESET')) resolve('not_listening');
      else resolve('lost');
    });
  });
}

function problem(outgoing: ServerResponse, code: ProblemCode, detail: string): void {
  const error = new ActorError(code, { detail });
  const body = JSON.stringify(problemDocument(error, crypto.randomUUID()));
  // The request's body may be left unread: the connection closes after this answer.
  outgoing
    .writeHead(error.status, {
      'Content-Type': PROBLEM_CONTENT_TYPE,
      'Cache-Control': 'no-store',
      'Retry-After': '1',
      Connection: 'close',
    })
    .end(body);
}

// Polls /ready and reloads once the actor answers with anything but this page's own failure.
const FAILURE_PAGE_SCRIPT = `(() => {
  const poll = async () => {
    try {
      const response = await fetch(location.pathname.replace(/\\/[^/]*$/, '') + ${JSON.stringify(readyRoute.spec.path)}, { cache: 'no-store' });
      const body = await response.clone().json().catch(() => ({}));
      if (body.code !== 'actor_failed_to_start' && body.code !== 'actor_starting') return location.reload();
    } catch {}
    setTimeout(poll, 1000);
  };
  setTimeout(poll, 1000);
})();`;

async function failurePage(outgoing: ServerResponse, failure: string): Promise<void> {
  const nonce = randomNonce();
  const page = await html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Actor failed to start</title>
<style nonce="${nonce}">body{font-family:system-ui,sans-serif;margin:2rem;max-width:60rem}pre{background:#c628281a;padding:1rem;white-space:pre-wrap;border-left:4px solid #c62828}</style></head>
<body><h1>actor failed to start</h1><p>Fix the code and save: <code>actorkit dev</code> restarts the actor and this page reloads.</p>
<pre id="failure">${failure}</pre>
<script nonce="${nonce}">${raw(FAILURE_PAGE_SCRIPT)}</script></body></html>
`;
  outgoing.writeHead(503, { ...htmlPageHeaders(nonce), 'Retry-After': '1' }).end(page.toString());
}

async function answer(actor: ProxiedActor, incoming: IncomingMessage, outgoing: ServerResponse): Promise<void> {
  const started = Date.now();
  for (;;) {
    const forwarded = await forwardOnce(actor, incoming, outgoing);
    if (forwarded === 'answered') return;
    if (forwarded === 'lost') {
      problem(
        outgoing,
        'actor_connection_lost',
        'the actor closed the connection while the request was sent (it restarted or exited); send it again',
      );
      return;
    }
    const waited = Date.now() - started;
    if (actor.state === 'failed' && waited >= FAILED_WAIT_MS) break;
    if (waited >= START_WAIT_MS || actor.state === 'stopped') break;
    await pause(RETRY_EVERY_MS);
  }
  if (actor.state === 'failed') {
    const failure = actor.failure || 'the actor exited; see the terminal';
    const wantsPage = incoming.method === 'GET' && (incoming.headers.accept ?? '').includes('text/html');
    if (wantsPage) await failurePage(outgoing, failure);
    else problem(outgoing, 'actor_failed_to_start', failure);
    return;
  }
  problem(outgoing, 'actor_starting', 'actorkit dev is (re)starting the actor; try again in a moment');
}

/** Reads the body, keeping at most `limit` bytes; undefined when it is longer (read to its end and dropped, so the answer reaches the client). */
async function readBody(incoming: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of incoming as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size <= limit) chunks.push(chunk);
  }
  return size > limit ? undefined : Buffer.concat(chunks);
}

/** Answers a request with the dev process's own route: the request as a Fetch `Request`, its `Response` written back. */
async function answerOwn(route: DevOwnRoute, incoming: IncomingMessage, outgoing: ServerResponse): Promise<void> {
  const method = incoming.method ?? 'GET';
  const bodyless = method === 'GET' || method === 'HEAD';
  const body = bodyless ? undefined : await readBody(incoming, route.bodyLimit);
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming.headers))
    for (const item of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(name, item);
  const response =
    body === undefined && !bodyless
      ? problemResponse(
          new ActorError('payload_too_large', { detail: `the body is over ${route.bodyLimit} bytes` }),
          crypto.randomUUID(),
        )
      : await route.handle(
          new Request(`http://${incoming.headers.host ?? '127.0.0.1'}${incoming.url ?? '/'}`, {
            method,
            headers,
            ...(body === undefined ? {} : { body: new Uint8Array(body) }),
          }),
        );
  outgoing
    .writeHead(response.status, Object.fromEntries(response.headers))
    .end(Buffer.from(await response.arrayBuffer()));
}

/** Whether the request is for `route`'s exact path (its query aside). */
function isOwnRoute(route: DevOwnRoute | undefined, incoming: IncomingMessage): route is DevOwnRoute {
  return route !== undefined && (incoming.url ?? '').split('?')[0] === route.path;
}

/**
 * The server `actorkit dev` answers on: it passes every request to the actor, bodies and
 * answers streamed through in both directions (nothing held in memory; see `forwardOnce`),
 * and, while the actor restarts, holds the request until it listens again. While the actor has
 * failed to start, it answers 503: the problem `actor_failed_to_start` with the error as its
 * detail, or, to a browser asking for a page, a page showing the error that reloads itself once
 * a save fixed it. The request of `ownRoute`'s path it answers itself (see `answerOwn`). A port
 * in use is a `failed` {@link CliError} (`port_in_use`).
 * @param actor the actor behind it
 * @param address where to listen
 * @param ownRoute a route of the dev process itself (the playground's "Save as eval case")
 */
export function startDevProxy(
  actor: ProxiedActor,
  address: { readonly port: number; readonly host: string },
  ownRoute?: DevOwnRoute,
): Promise<DevProxy> {
  const handle = (incoming: IncomingMessage, outgoing: ServerResponse) => {
    const answered = isOwnRoute(ownRoute, incoming)
      ? answerOwn(ownRoute, incoming, outgoing)
      : answer(actor, incoming, outgoing);
    answered.catch(() => outgoing.destroy());
  };
  const server: Server = createServer(handle);
  // `Expect: 100-continue` is answered by the actor, not at once by Node (see `forwardOnce`).
  server.on('checkContinue', handle);
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE') {
        reject(
          new CliError(
            'failed',
            'port_in_use',
            `port ${address.port} is already in use on ${address.host}: stop what listens there or pick another port with --port`,
          ),
        );
      } else if (error.code === 'EACCES') {
        reject(
          new CliError(
            'failed',
            'port_not_allowed',
            `port ${address.port} on ${address.host} needs privileges this user lacks: pick a port above 1023 with --port`,
          ),
        );
      } else reject(error);
    });
    server.listen(address.port, address.host, () => {
      const bound = server.address();
      resolve({
        port: typeof bound === 'object' && bound !== null ? bound.port : address.port,
        close: () =>
          new Promise((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
