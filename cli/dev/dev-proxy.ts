import { createServer, request, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { html, raw } from 'hono/html';
import { htmlPageHeaders, randomNonce } from '../../src/core/html-page.js';
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
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'proxy-connection']);

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function withoutHopByHop(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !HOP_BY_HOP.has(name.toLowerCase())));
}

function readBody(incoming: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => resolve(Buffer.concat(chunks)));
    incoming.on('error', reject);
  });
}

/** Sends one request to the actor; resolves false when nothing listens (so the caller may retry). */
function forwardOnce(actor: ProxiedActor, incoming: IncomingMessage, body: Buffer, outgoing: ServerResponse): Promise<boolean> {
  return new Promise((resolve) => {
    const upstream = request(
      { host: '127.0.0.1', port: actor.port, method: incoming.method, path: incoming.url, headers: { ...withoutHopByHop(incoming.headers), 'content-length': String(body.length) } },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, withoutHopByHop(answer.headers));
        outgoing.flushHeaders();
        answer.pipe(outgoing);
        answer.on('end', () => resolve(true));
        answer.on('error', () => resolve(true));
      },
    );
    // A client that goes away aborts the actor's work (a streamed model call stops).
    const abort = () => upstream.destroy();
    outgoing.once('close', abort);
    upstream.once('close', () => outgoing.off('close', abort));
    upstream.on('error', (error: NodeJS.ErrnoException) => {
      if (!outgoing.headersSent && (error.code === 'ECONNREFUSED' || error.code === 'ECONNRESET')) resolve(false);
      else {
        outgoing.destroy();
        resolve(true);
      }
    });
    upstream.end(body);
  });
}

function problem(outgoing: ServerResponse, code: string, title: string, detail: string): void {
  const body = JSON.stringify({ type: `https://actorkit.dev/problems/${code.replaceAll('_', '-')}`, title, status: 503, detail, code, request_id: crypto.randomUUID() });
  outgoing.writeHead(503, { 'Content-Type': 'application/problem+json', 'Cache-Control': 'no-store', 'Retry-After': '1' }).end(body);
}

// Polls /ready and reloads once the actor answers with anything but this page's own failure.
const FAILURE_PAGE_SCRIPT = `(() => {
  const poll = async () => {
    try {
      const response = await fetch(location.pathname.replace(/\\/[^/]*$/, '') + '/ready', { cache: 'no-store' });
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
  const body = await readBody(incoming);
  const started = Date.now();
  for (;;) {
    if (await forwardOnce(actor, incoming, body, outgoing)) return;
    const waited = Date.now() - started;
    if (actor.state === 'failed' && waited >= FAILED_WAIT_MS) break;
    if (waited >= START_WAIT_MS || actor.state === 'stopped') break;
    await pause(RETRY_EVERY_MS);
  }
  if (actor.state === 'failed') {
    const failure = actor.failure || 'the actor exited; see the terminal';
    const wantsPage = incoming.method === 'GET' && (incoming.headers.accept ?? '').includes('text/html');
    if (wantsPage) await failurePage(outgoing, failure);
    else problem(outgoing, 'actor_failed_to_start', 'Actor failed to start', failure);
    return;
  }
  problem(outgoing, 'actor_starting', 'Actor is starting', 'actorkit dev is (re)starting the actor; try again in a moment');
}

/**
 * The server `actorkit dev` answers on: it passes every request to the actor (streams included)
 * and, while the actor restarts, holds the request until it listens again. While the actor has
 * failed to start, it answers 503: the problem `actor_failed_to_start` with the error as its
 * detail, or, to a browser asking for a page, a page showing the error that reloads itself once
 * a save fixed it. A port in use is a `failed` {@link CliError} (`port_in_use`).
 * @param actor the actor behind it
 * @param address where to listen
 */
export function startDevProxy(actor: ProxiedActor, address: { readonly port: number; readonly host: string }): Promise<DevProxy> {
  const server: Server = createServer((incoming, outgoing) => {
    answer(actor, incoming, outgoing).catch(() => outgoing.destroy());
  });
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE') {
        reject(new CliError('failed', 'port_in_use', `port ${address.port} is already in use on ${address.host}: stop what listens there or pick another port with --port`));
      } else if (error.code === 'EACCES') {
        reject(new CliError('failed', 'port_not_allowed', `port ${address.port} on ${address.host} needs privileges this user lacks: pick a port above 1023 with --port`));
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
