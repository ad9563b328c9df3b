/** Longest caller `X-Request-Id` echoed back; a longer one is replaced. */
const REQUEST_ID_MAX_LENGTH = 128;

const SANE_ID = /^[\w=-]+$/;

/** Node's raw request, which `@hono/node-server` passes to `fetch` as `{ incoming }`. */
interface NodeBindings {
  readonly incoming?: { readonly rawHeaders?: readonly string[] };
}

/**
 * The caller's `X-Request-Id`. Under `@hono/node-server` it is read from Node's raw header
 * list: asking the Fetch `Request` for a header makes the adapter build a whole `Headers`
 * copy, and Node's parsed header object is itself built on first use.
 */
function callerRequestId(request: Request, runtime: unknown): string | null {
  const raw = (runtime as NodeBindings | undefined)?.incoming?.rawHeaders;
  if (raw === undefined) return request.headers.get('X-Request-Id');
  for (let index = 0; index < raw.length; index += 2) {
    const name = raw[index]!;
    if (name.length === 12 && name.toLowerCase() === 'x-request-id') return raw[index + 1] ?? null;
  }
  return null;
}

/**
 * The id of a request: the caller's `X-Request-Id` when it is 1–128 characters of
 * `[A-Za-z0-9_=-]`, a new UUID otherwise.
 * @param request the incoming request
 * @param runtime what the runtime passed to `fetch` next to it (Node's `{ incoming }` is read directly)
 */
export function requestIdFor(request: Request, runtime: unknown): string {
  const given = callerRequestId(request, runtime);
  return given !== null && given.length <= REQUEST_ID_MAX_LENGTH && SANE_ID.test(given) ? given : crypto.randomUUID();
}
