import type { RuntimeBindings } from '../../core/runtime-bindings.js';
import { readPackageFile } from '../read-package-file.js';

/** The part of Bun's `Server` that knows a request's client. */
export interface BunRequestIp {
  requestIP(request: Request): { readonly address?: string } | null;
}

/**
 * What the Bun adapter tells the actor about a request: the client address, from the server
 * (`server.requestIP(request)`). Headers come from the Fetch `Request`, which Bun builds natively; installed packages' files through `readPackageFile`.
 */
export function bunRequestBindings(server: BunRequestIp, request: Request): RuntimeBindings {
  return { clientAddress: () => server.requestIP(request)?.address ?? undefined, readPackageFile };
}
