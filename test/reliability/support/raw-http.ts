import { connect, type Socket } from 'node:net';
import type { ObservedResponse } from './response-invariants.js';

/** What came back on a raw connection: the first response (if any) and how the connection ended. */
export interface RawExchange {
  /** The first response, or null when the server closed without answering. */
  readonly response: ObservedResponse | null;
  /** Everything the server sent. */
  readonly raw: string;
}

function dechunk(body: string): string {
  let rest = body;
  let out = '';
  for (;;) {
    const lineEnd = rest.indexOf('\r\n');
    if (lineEnd === -1) return out;
    const size = Number.parseInt(rest.slice(0, lineEnd), 16);
    if (!Number.isFinite(size) || size === 0) return out;
    out += rest.slice(lineEnd + 2, lineEnd + 2 + size);
    rest = rest.slice(lineEnd + 2 + size + 2);
  }
}

/**
 * Parses the first HTTP/1.1 response in `raw` (status line, headers, a Content-Length or
 * chunked body); null when `raw` holds no complete status line and header block.
 * @param raw bytes the server sent, as Latin-1 text
 */
export function parseFirstResponse(raw: string): ObservedResponse | null {
  const headerEnd = raw.indexOf('\r\n\r\n');
  if (headerEnd === -1) return null;
  const [statusLine, ...headerLines] = raw.slice(0, headerEnd).split('\r\n');
  const status = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? '')?.[1];
  if (status === undefined) return null;
  const headers = new Map<string, string>();
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  const rest = raw.slice(headerEnd + 4);
  const length = headers.get('content-length');
  const body =
    length !== undefined
      ? rest.slice(0, Number(length))
      : headers.get('transfer-encoding')?.includes('chunked')
        ? dechunk(rest)
        : rest;
  return { status: Number(status), header: (name) => headers.get(name.toLowerCase()) ?? null, body };
}

/** Opens a TCP connection to `url`'s host and port; resolves once connected. */
export function openSocket(url: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) }, () => {
      socket.off('error', reject);
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

/**
 * Writes `parts` to a fresh connection (waiting `gapMs` between them), half-closes it, and
 * collects what the server sends until it closes the connection or `timeoutMs` passes.
 * @param url the server
 * @param parts the request bytes, in pieces
 * @param options `gapMs` between pieces; `timeoutMs` to wait for the server; `end: false` to keep the write side open
 */
export async function exchange(
  url: string,
  parts: readonly (string | Buffer)[],
  options: { gapMs?: number; timeoutMs?: number; end?: boolean } = {},
): Promise<RawExchange> {
  const socket = await openSocket(url);
  const chunks: Buffer[] = [];
  const closed = new Promise<void>((resolve) => {
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => resolve());
    socket.on('close', () => resolve());
  });
  for (const [index, part] of parts.entries()) {
    if (index > 0 && options.gapMs) await new Promise((resolve) => setTimeout(resolve, options.gapMs));
    if (socket.destroyed) break;
    socket.write(typeof part === 'string' ? Buffer.from(part, 'latin1') : part);
  }
  if (options.end !== false && !socket.destroyed) socket.end();
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    closed,
    new Promise<void>((resolve) => (timer = setTimeout(resolve, options.timeoutMs ?? 5_000))),
  ]);
  clearTimeout(timer);
  socket.destroy();
  const raw = Buffer.concat(chunks).toString('latin1');
  return { response: parseFirstResponse(raw), raw };
}
