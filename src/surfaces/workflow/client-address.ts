/**
 * The network address of the client, read from the second argument each runtime passes to
 * `app.fetch` (`c.env.runtime`): Node's `{incoming}`, Bun's server (`requestIP`), Deno's
 * `{remoteAddr}`. Undefined when the runtime does not say (e.g. `app.request` in tests).
 * @param bindings `c.env.runtime`
 * @param request the request, which Bun needs to look the address up
 */
export function clientAddress(bindings: unknown, request: Request): string | undefined {
  if (typeof bindings !== 'object' || bindings === null) return undefined;
  const runtime = bindings as {
    incoming?: { socket?: { remoteAddress?: string } };
    requestIP?: (request: Request) => { address?: string } | null;
    remoteAddr?: { hostname?: string };
  };
  if (runtime.incoming?.socket?.remoteAddress !== undefined) return runtime.incoming.socket.remoteAddress;
  if (typeof runtime.requestIP === 'function') return runtime.requestIP(request)?.address ?? undefined;
  return runtime.remoteAddr?.hostname;
}
