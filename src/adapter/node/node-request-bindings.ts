import type { IncomingMessage } from 'node:http';
import type { RuntimeBindings } from '../../core/runtime-bindings.js';
import { readPackageFile } from '../read-package-file.js';

/**
 * What the Node adapter tells the actor about a request, read from Node's own request: headers
 * from its raw list (the Fetch `Request` of `@hono/node-server` would build a whole `Headers`
 * copy, and Node's parsed header object is itself built on first use), the client address
 * from its socket; installed packages' files through `readPackageFile`.
 */
export class NodeRequestBindings implements RuntimeBindings {
  readonly #incoming: Pick<IncomingMessage, 'rawHeaders' | 'socket'>;

  constructor(incoming: Pick<IncomingMessage, 'rawHeaders' | 'socket'>) {
    this.#incoming = incoming;
  }

  requestHeader(name: string): string | null {
    const raw = this.#incoming.rawHeaders;
    for (let index = 0; index < raw.length; index += 2) {
      const given = raw[index]!;
      if (given.length === name.length && given.toLowerCase() === name) return raw[index + 1] ?? null;
    }
    return null;
  }

  clientAddress(): string | undefined {
    return this.#incoming.socket?.remoteAddress;
  }

  readPackageFile(specifier: string): Promise<string | undefined> {
    return readPackageFile(specifier);
  }
}
