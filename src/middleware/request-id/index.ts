import type { MiddlewareHandler } from 'hono';

/** Options of `requestIdMiddleware`. */
export interface RequestIdOptions {
  /** Longest caller id echoed; a longer one is replaced. */
  readonly limitLength?: number;
}

const SANE_ID = /^[\w=-]+$/;

/** Node's raw request, which `@hono/node-server` passes as `c.env.incoming`. */
interface NodeBindings {
  readonly incoming?: { readonly headers?: Readonly<Record<string, string | string[] | undefined>> };
}

/**
 * The caller's `X-Request-Id`. Under `@hono/node-server` it is read from Node's already-parsed
 * header object: asking the Fetch `Request` for any header makes the adapter build a whole
 * `Headers` copy, which costs a fifth of a bare `/health` answer.
 */
function callerRequestId(env: unknown, request: Request): string | null {
  const nodeHeaders = (env as NodeBindings | undefined)?.incoming?.headers;
  if (nodeHeaders !== undefined) {
    const value = nodeHeaders['x-request-id'];
    return typeof value === 'string' ? value : null;
  }
  return request.headers.get('X-Request-Id');
}

/**
 * Gives every request an id: the caller's `X-Request-Id` when it is 1–`limitLength`
 * characters of `[A-Za-z0-9_=-]`, a new UUID otherwise. It is `c.get('requestId')` below and
 * goes out as `X-Request-Id` on every response, including plain `Response`s a route returns.
 * The header is written once, on the finished response (cheaper than preparing it before the
 * handler, which sends @hono/node-server down its slow header path).
 */
export function requestIdMiddleware(options: RequestIdOptions = {}): MiddlewareHandler<{ Variables: { requestId: string } }> {
  const limitLength = options.limitLength ?? 128;
  return async function requestId(c, next) {
    const given = callerRequestId(c.env, c.req.raw);
    const id = given !== null && given.length <= limitLength && SANE_ID.test(given) ? given : crypto.randomUUID();
    c.set('requestId', id);
    await next();
    if (c.res.headers.get('X-Request-Id') === id) return;
    if (c.req.raw.method !== 'HEAD') {
      try {
        c.res.headers.set('X-Request-Id', id);
        return;
      } catch {
        // Immutable headers (a fetched Response): rebuilt below.
      }
    }
    // @hono/node-server answers HEAD with a copy made from the response's original init, which
    // misses later header edits: give it a response whose init already holds the id.
    const headers = new Headers(c.res.headers);
    headers.set('X-Request-Id', id);
    c.res = new Response(c.res.body, { status: c.res.status, statusText: c.res.statusText, headers });
  };
}
