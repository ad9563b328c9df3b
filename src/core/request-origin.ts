import { readRequestHeader, type RuntimeBindings } from './runtime-bindings.js';

/**
 * The host (with its port, when not the default) the client addressed: the first
 * `X-Forwarded-Host` when a trusted relay sets it, else `Host`, else the request URL's.
 */
function addressedHost(request: Request, runtime: RuntimeBindings | undefined, trustForwardedHost: boolean): string {
  const forwarded = trustForwardedHost
    ? readRequestHeader(request, runtime, 'x-forwarded-host')?.split(',')[0]?.trim()
    : undefined;
  return forwarded || readRequestHeader(request, runtime, 'host') || new URL(request.url).host;
}

/** `Sec-Fetch-Site` values of a request a browser made from the target's own origin, or at the user's own hand (a typed URL, a bookmark). */
const OWN_FETCH_SITES: ReadonlySet<string> = new Set(['same-origin', 'none']);

/**
 * Whether a browser made the request from a page of another origin. Browsers say so themselves
 * in `Sec-Fetch-Site` (a header no page can set): anything but `same-origin` or `none` is
 * foreign. A browser that does not send it is judged by `Origin`: foreign when it is not an
 * http(s) origin (`null` included) or its host and port differ from the host the request
 * addressed (see `addressedHost`; the scheme is left out, since a TLS-terminating proxy in front
 * of the actor makes an `https` page call it over `http`). A request with neither header (curl,
 * SDKs, servers) is not a browser's from elsewhere. `Sec-Fetch-Site` comes first because a relay
 * or proxy in front of the actor may rewrite `Host` but not what the browser saw.
 * @param request the incoming request
 * @param runtime what the runtime's adapter passed beside it
 * @param trustForwardedHost whether a trusted relay's `X-Forwarded-Host` names the addressed host (on the platform)
 */
export function hasForeignOrigin(
  request: Request,
  runtime: RuntimeBindings | undefined,
  trustForwardedHost: boolean,
): boolean {
  const site = readRequestHeader(request, runtime, 'sec-fetch-site');
  if (site !== null) return !OWN_FETCH_SITES.has(site.trim().toLowerCase());
  const origin = readRequestHeader(request, runtime, 'origin');
  if (origin === null) return false;
  if (!URL.canParse(origin)) return true;
  const { protocol, host, origin: serialised } = new URL(origin);
  if ((protocol !== 'http:' && protocol !== 'https:') || serialised !== origin.toLowerCase()) return true;
  const own = `${protocol}//${addressedHost(request, runtime, trustForwardedHost)}`;
  return !URL.canParse(own) || new URL(own).host !== host;
}
