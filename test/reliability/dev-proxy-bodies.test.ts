import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkRuntime, RUNTIMES_UNDER_TEST } from '../contract/runtimes-under-test.js';
import { spawnActor, type SpawnedActor } from '../contract/spawn-actor.js';
import { ensureBuilt } from '../support/built-package.js';
import { openSocket, parseFirstResponse } from './support/raw-http.js';

// The `actorkit dev` proxy (cli/dev/dev-proxy.ts) in its own process, in front of a server that
// counts what it gets and of the built example actor (its own process, on Node and on Bun, as
// `actorkit dev` runs it) with a small body limit: large bodies go through the proxy without
// being held in memory, and an oversized body gets the actor's own 413 problem.

const MB = 1024 * 1024;
/** Bytes of the large upload and download, generated on the fly, never stored. */
const LARGE = 160 * MB;
/** How much the proxy's memory may grow while one large body goes through it (it held all of it before). */
const GROWTH_CEILING = 96 * MB;
const BODY_LIMIT = 8192;
const PROXY_SCRIPT = new URL('./support/dev-proxy-process.ts', import.meta.url).pathname;

interface ProxyProcess {
  readonly child: ChildProcess;
  readonly url: string;
  memory(): Promise<{ rss: number; peak: number }>;
}

/** Starts the dev proxy in front of `actorPort`, in a process of its own. */
async function startProxyProcess(actorPort: number): Promise<ProxyProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', PROXY_SCRIPT, String(actorPort)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const next = async () =>
    JSON.parse(((await lines.next()).value as string | undefined) ?? 'null') as Record<string, number>;
  const { port } = await next();
  return {
    child,
    url: `http://127.0.0.1:${port}`,
    async memory() {
      child.stdin!.write('\n');
      return (await next()) as { rss: number; peak: number };
    },
  };
}

/** Writes `bytes` bytes into `stream`, one reused megabyte at a time, waiting for it to drain; then ends it. */
function writeGenerated(
  stream: NodeJS.WritableStream & { once(event: 'drain', listener: () => void): unknown },
  bytes: number,
): void {
  const megabyte = Buffer.alloc(MB, 'x');
  let left = bytes;
  const pump = () => {
    while (left > 0) {
      const piece = megabyte.subarray(0, Math.min(MB, left));
      left -= piece.length;
      if (!stream.write(piece)) return void stream.once('drain', pump);
    }
    stream.end();
  };
  pump();
}

/** A server that counts the bytes of `POST /upload` and sends `GET /download/<bytes>` bytes, one reused megabyte at a time. */
function startByteServer(): Promise<Server> {
  const server = createServer((incoming, outgoing) => {
    if (incoming.method === 'POST') {
      let received = 0;
      incoming.on('data', (chunk: Buffer) => (received += chunk.length));
      incoming.on('end', () =>
        outgoing.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ received })),
      );
      return;
    }
    const bytes = Number(incoming.url?.split('/').at(-1));
    outgoing.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': String(bytes) });
    writeGenerated(outgoing, bytes);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/** Sends `bytes` generated on the fly as the body of a POST, with backpressure; resolves with the answer's status and text. */
function upload(url: string, bytes: number): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      `${url}/upload`,
      { method: 'POST', headers: { 'Content-Type': 'application/octet-stream', 'Content-Length': String(bytes) } },
      (answer) => {
        let text = '';
        answer.setEncoding('utf8');
        answer.on('data', (chunk: string) => (text += chunk));
        answer.on('end', () => resolve({ status: answer.statusCode ?? 0, text }));
      },
    );
    outgoing.on('error', reject);
    writeGenerated(outgoing, bytes);
  });
}

/** Reads `GET /download/<bytes>` to its end without keeping it; resolves with the count. */
function download(url: string, bytes: number): Promise<number> {
  return new Promise((resolve, reject) => {
    request(`${url}/download/${bytes}`, (answer) => {
      let received = 0;
      answer.on('data', (chunk: Buffer) => (received += chunk.length));
      answer.on('end', () => resolve(received));
      answer.on('error', reject);
    })
      .on('error', reject)
      .end();
  });
}

/** How an oversized body is announced: its length, its length with `Expect: 100-continue`, or chunked (no length). */
type BodyFraming = 'content-length' | 'expect-continue' | 'chunked';

/**
 * Sends an oversized invoke as curl does: the headers (with `Expect: 100-continue` when asked),
 * then — at once, or after `100 Continue` — the body in pieces (chunks when `chunked`) until a
 * final answer comes. Resolves with that answer, or null when the connection ended without one.
 */
async function oversizedInvoke(url: string, framing: BodyFraming): Promise<ReturnType<typeof parseFirstResponse>> {
  const declared = 64 * MB;
  const expectContinue = framing === 'expect-continue';
  const socket = await openSocket(url);
  let raw = '';
  let final: ReturnType<typeof parseFirstResponse> = null;
  const settled = new Promise<void>((resolve) => {
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      raw += chunk;
      const withoutInterim = raw.replace(/^(HTTP\/1\.1 100 [^\r]*\r\n(?:[^\r]+\r\n)*\r\n)+/, '');
      final = withoutInterim === '' ? null : parseFirstResponse(withoutInterim);
      if (final !== null && final.body.length >= Number(final.header('content-length') ?? 0)) resolve();
    });
    socket.on('error', () => resolve());
    socket.on('close', () => resolve());
  });
  socket.write(
    `${[`POST /agent/invoke HTTP/1.1`, 'Host: 127.0.0.1', 'Content-Type: application/json', framing === 'chunked' ? 'Transfer-Encoding: chunked' : `Content-Length: ${declared}`, ...(expectContinue ? ['Expect: 100-continue'] : [])].join('\r\n')}\r\n\r\n`,
  );
  const sendBody = async () => {
    const blanks = Buffer.alloc(64 * 1024, ' ');
    const piece =
      framing === 'chunked'
        ? Buffer.concat([Buffer.from(`${blanks.length.toString(16)}\r\n`), blanks, Buffer.from('\r\n')])
        : blanks;
    for (let sent = 0; sent < declared && final === null && !socket.destroyed; sent += piece.length) {
      if (!socket.write(piece)) await new Promise((resolve) => socket.once('drain', resolve));
    }
  };
  if (expectContinue) {
    // curl waits a second for `100 Continue`, then sends the body anyway.
    const interim = new Promise<void>((resolve) => {
      const check = () => (raw.startsWith('HTTP/1.1 100') || final !== null ? resolve() : setTimeout(check, 5));
      check();
    });
    await Promise.race([interim, new Promise((resolve) => setTimeout(resolve, 1_000))]);
  }
  void sendBody().catch(() => undefined);
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([settled, new Promise<void>((resolve) => (timer = setTimeout(resolve, 15_000)))]);
  clearTimeout(timer);
  socket.destroy();
  return final;
}

const ACTOR_RUNTIMES = RUNTIMES_UNDER_TEST.filter(
  (runtime) => runtime.name === 'node-system' || runtime.name === 'bun',
);

describe('the dev proxy with large bodies', () => {
  let bytes: Server;
  let proxy: ProxyProcess;
  beforeAll(async () => {
    bytes = await startByteServer();
    proxy = await startProxyProcess((bytes.address() as AddressInfo).port);
  }, 30_000);
  afterAll(async () => {
    proxy?.child.kill('SIGKILL');
    bytes?.closeAllConnections();
    await new Promise((resolve) => bytes?.close(resolve));
  });

  it(`streams a ${LARGE / MB} MB upload and download through without holding them in memory`, async () => {
    expect(await upload(proxy.url, MB)).toEqual({ status: 200, text: JSON.stringify({ received: MB }) });
    const before = await proxy.memory();
    expect(await upload(proxy.url, LARGE)).toEqual({ status: 200, text: JSON.stringify({ received: LARGE }) });
    const afterUpload = await proxy.memory();
    expect(afterUpload.peak - before.rss, `upload: rss ${before.rss} → peak ${afterUpload.peak}`).toBeLessThan(
      GROWTH_CEILING,
    );
    expect(await download(proxy.url, LARGE)).toBe(LARGE);
    const afterDownload = await proxy.memory();
    expect(afterDownload.peak - before.rss, `download: rss ${before.rss} → peak ${afterDownload.peak}`).toBeLessThan(
      GROWTH_CEILING,
    );
  }, 60_000);
});

describe.each(ACTOR_RUNTIMES)(
  'the dev proxy in front of the example actor on $name, with oversized bodies',
  (runtime) => {
    let actor: SpawnedActor;
    let proxy: ProxyProcess;
    beforeAll(async () => {
      ensureBuilt();
      checkRuntime(runtime);
      actor = await spawnActor(runtime, { BODY_LIMIT_BYTES: String(BODY_LIMIT) });
      proxy = await startProxyProcess(Number(new URL(actor.baseUrl).port));
    }, 60_000);
    afterAll(() => {
      proxy?.child.kill('SIGKILL');
      actor?.child.kill('SIGKILL');
    });

    for (const framing of ['expect-continue', 'content-length', 'chunked'] as const) {
      it(`passes on the actor's 413 problem for a body sent with ${framing}`, async () => {
        for (let attempt = 0; attempt < 5; attempt += 1) {
          const answer = await oversizedInvoke(proxy.url, framing);
          expect(answer?.status, `attempt ${attempt}: no final answer`).toBe(413);
          expect(answer!.header('content-type')).toBe('application/problem+json');
          expect(JSON.parse(answer!.body)).toMatchObject({ status: 413, code: 'payload_too_large' });
        }
        // The proxy still answers afterwards.
        expect((await fetch(`${proxy.url}/health`)).status).toBe(200);
      }, 60_000);
    }
  },
);
