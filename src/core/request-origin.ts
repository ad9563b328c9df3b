import { readRequestHeader, type RuntimeBindings } from './runtime-bindings.js';

/**
 * The host (with its port, when not the default) the client addressed: the first
 * `X-Forwarded-Host` when a trusted relay sets it, else `Host`, else the request URL's.
 */
function addressedHost(request: Request, runtime: RuntimeBindings | undefined, trustForwardedHost: boolean): string {
  const forwarded = trustForwardedHost ? readRequestHeader(request, runtime, 'x-forwarded-host')?.split(',')[0]?.trim() : undefined;
  return forwarded || readRequestHeader(request, runtime, 'host') || new URL(request.url).host;
}

/**
 * Whether the request carries a browser `Origin` that is not the actor's own: an `Origin` that
 * is not an http(s) origin (`null` included), or whose host and port differ from the host the
 * request addressed (see `addressedHost`; the scheme is left out, since a TLS-terminating proxy
 * in front of the actor makes an `https` page call it over `http`). A request without `Origin`
 * (curl, SDKs, a same-origin `GET`) has none.
 * @param request the incoming request
 * @param runtime what the runtime's adapter passed beside it
 * @param trustForwardedHost whether a trusted relay's `X-Forwarded-Host` names the addressed host (on the platform)
 */
export function hasForeignOrigin(request: Request, runtime: RuntimeBindings | undefined, trustForwardedHost: boolean): boolean {
  const origin = readRequestHeader(request, runtime, 'origin');
  if (origin === null) return false;
  if (!URL.canParse(origin)) return true;
  const { protocol, host, origin: serialised } = new URL(origin);
  if ((protocol !== 'http:' && protocol !== 'https:') || serialised !== origin.toLowerCase()) return true;
  const own = `${protocol}//${addressedHost(request, runtime, trustForwardedHost)}`;
  return !URL.canParse(own) || new URL(own).host !== host;
}
