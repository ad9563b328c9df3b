import type { DenoServeInfo } from './deno-request-bindings.js';

/** The part of `Deno.HttpServer` the adapter uses (typed locally: no Deno type package needed). */
interface DenoHttpServer {
  readonly addr: { readonly port: number; readonly hostname: string };
  /** Stops accepting connections; resolves once open requests are answered. */
  shutdown(): Promise<void>;
}

/** The options of `Deno.serve` the adapter passes. */
interface DenoServeOptions {
  readonly port: number;
  readonly hostname: string;
  /** Aborting closes the server and cuts every connection at once. */
  readonly signal: AbortSignal;
  /** Called once listening; Deno prints a line by default, the adapter logs its own event instead. */
  onListen(address: { readonly port: number; readonly hostname: string }): void;
}

/** The signals the adapter listens to. */
type DenoSignal = 'SIGTERM' | 'SIGINT';

/** The part of the `Deno` global the adapter uses. */
export interface DenoGlobal {
  serve(
    options: DenoServeOptions,
    handler: (request: Request, info: DenoServeInfo) => Response | Promise<Response>,
  ): DenoHttpServer;
  readonly env: { toObject(): Record<string, string> };
  addSignalListener(signal: DenoSignal, handler: () => void): void;
  removeSignalListener(signal: DenoSignal, handler: () => void): void;
  exit(code: number): never;
}
