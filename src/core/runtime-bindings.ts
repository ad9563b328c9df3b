/**
 * What a runtime adapter tells the actor about one request beyond the Fetch `Request`, and what
 * the runtime can read for it: the second argument of the actor's `fetch`, read by the core as
 * `c.env.runtime`. Each adapter (`src/adapter/<runtime>/`) builds it from its runtime's own
 * objects, so the core never sees them. Every member is optional: under `app.request` (tests)
 * there are none.
 */
export interface RuntimeBindings {
  /** One header of the request, read without building a Fetch `Headers` copy; null when absent. */
  requestHeader?(name: string): string | null;
  /** The network address of the client, when the runtime knows it. */
  clientAddress?(): string | undefined;
  /**
   * The text of a file of an installed package, e.g. `swagger-ui-dist/swagger-ui.css`, resolved
   * from actorkit's own location; undefined when the package is not installed. How a Fetch-only
   * route reads an optional package's static files.
   */
  readPackageFile?(specifier: string): Promise<string | undefined>;
}

/**
 * One header of `request`, through the runtime's header reader when its adapter offers one (on
 * Node, asking the Fetch `Request` for a header builds a whole `Headers` copy).
 * @param request the incoming request
 * @param runtime what the runtime's adapter passed to `fetch` next to it
 * @param name the header's lower-case name
 */
export function readRequestHeader(request: Request, runtime: RuntimeBindings | undefined, name: string): string | null {
  return typeof runtime?.requestHeader === 'function' ? runtime.requestHeader(name) : request.headers.get(name);
}
