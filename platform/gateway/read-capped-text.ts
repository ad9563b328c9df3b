import { ActorError } from '../../src/index.js';

/**
 * Reads a request body as text, refusing one over `maxBytes` with 413 `payload_too_large` (by
 * its `Content-Length`, or while reading a chunked one).
 * @param request the request
 * @param maxBytes the largest body read
 */
export async function readCappedText(request: Request, maxBytes: number): Promise<string> {
  const tooLarge = () => new ActorError('payload_too_large', { detail: `The body is over ${maxBytes} bytes` });
  const declared = Number(request.headers.get('content-length') ?? '0');
  if (declared > maxBytes) throw tooLarge();
  if (request.body === null) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
  const all = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    all.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new TextDecoder().decode(all);
}
