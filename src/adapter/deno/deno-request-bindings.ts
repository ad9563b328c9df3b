import type { RuntimeBindings } from '../../core/runtime-bindings.js';
import { readPackageFile } from '../read-package-file.js';

/** The handler info `Deno.serve` passes beside each request. */
export interface DenoServeInfo {
  readonly remoteAddr?: { readonly hostname?: string };
}

/**
 * What the Deno adapter tells the actor about a request: the client address, from the handler
 * info. Headers come from the Fetch `Request`, which Deno builds natively; installed packages' files through `readPackageFile`.
 */
export function denoRequestBindings(info: DenoServeInfo | undefined): RuntimeBindings {
  return { clientAddress: () => info?.remoteAddr?.hostname, readPackageFile };
}
