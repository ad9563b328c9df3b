import type { BunRequestIp } from './bun-request-bindings.js';

/** The part of Bun's `Server` the adapter uses (typed locally: no `@types/bun` needed). */
interface BunServer extends BunRequestIp {
  readonly port: number;
  /** Stops listening; resolves once open requests are answered, or at once with `closeActiveConnections`. */
  stop(closeActiveConnections?: boolean): Promise<void>;
}

/** The options of `Bun.serve` the adapter passes. */
interface BunServeOptions {
  readonly port: number;
  readonly hostname: string;
  /** Seconds a client may stay silent before Bun closes its connection (Bun's default is 10, its maximum 255). */
  readonly idleTimeout: number;
  readonly development: boolean;
  fetch(request: Request, server: BunServer): Response | Promise<Response>;
}

/** The part of the `Bun` global the adapter uses. */
export interface BunGlobal {
  serve(options: BunServeOptions): BunServer;
}
