/**
 * What a runtime adapter tells the actor about one request beyond the Fetch `Request`: the
 * second argument of the actor's `fetch`, read by the core as `c.env.runtime`. Each adapter
 * (`src/adapter/<runtime>/`) builds it from its runtime's own objects, so the core never sees
 * them. Both members are optional: under `app.request` (tests) there are none.
 */
export interface RuntimeBindings {
  /** One header of the request, read without building a Fetch `Headers` copy; null when absent. */
  requestHeader?(name: string): string | null;
  /** The network address of the client, when the runtime knows it. */
  clientAddress?(): string | undefined;
}
