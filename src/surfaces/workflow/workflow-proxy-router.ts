import { Hono } from 'hono';
import type { ActorEnv } from '../../context/actor-context.js';
import { ActorError } from '../../core/actor-error.js';
import type { ActorRouter } from '../../context/actor-router.js';
import { problem } from '../../route-kit/openapi-parts.js';
import { StartupRefusal } from '../../environment/startup-refusal.js';
import { proxyRequestHeaders, proxyResponseHeaders } from './proxy-headers.js';

/** Options of `workflowProxyRouter`. */
export interface WorkflowProxyOptions {
  /** The workflow tool's URL: pass `env.WORKFLOW_BASE_URL`. Unset refuses to start. */
  readonly baseUrl: string | undefined;
  /**
   * How long the upstream may take to start its response once it has the whole request, in ms;
   * default 30 000. Request and response bodies stream without a size limit; on Node the whole
   * request must still arrive within the server's request time-out (60 s, `NODE_SERVER_TIMEOUTS`).
   */
  readonly timeoutMs?: number;
  /**
   * Keep and extend the `X-Forwarded-*` headers the caller sent. Default: on the platform
   * (`ACTOR_PLATFORM=true`, behind the trusted relay) yes, standalone no.
   */
  readonly trustForwardedHeaders?: boolean;
  /** The fetch to use; default the global one. */
  readonly fetch?: typeof fetch;
}

/** The public path prefix of the workflow proxy. */
export const WORKFLOW_PREFIX = '/workflow';

/** Default time-out for the upstream's response headers. */
const DEFAULT_WORKFLOW_TIMEOUT_MS = 30_000;

const METHODS_WITHOUT_BODY = new Set(['GET', 'HEAD']);

/**
 * The methods the proxy forwards, as `/openapi.json` lists them (HEAD with GET). Others (TRACE,
 * CONNECT, WebDAV's) get 405 with this `Allow` before any key: `fetch` cannot send TRACE or
 * CONNECT, and a workflow tool's webhooks answer none of them.
 */
const PROXIED_METHODS = ['get', 'post', 'put', 'patch', 'delete', 'options'] as const;

function upstreamBase(raw: string | undefined): URL {
  const refuse = (message: string) => new StartupRefusal('WORKFLOW_BASE_URL', message);
  if (raw === undefined || raw.trim() === '')
    throw refuse(
      'integration_type is n8n but WORKFLOW_BASE_URL is unset: set it to the workflow tool URL, e.g. http://n8n:5678',
    );
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw refuse(
      `WORKFLOW_BASE_URL is not a URL: ${JSON.stringify(raw)}: set it to the workflow tool URL, e.g. http://n8n:5678`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw refuse(`WORKFLOW_BASE_URL must be http or https, got ${url.protocol}`);
  if (url.username !== '' || url.password !== '') throw refuse('WORKFLOW_BASE_URL must not carry credentials');
  if (url.search !== '' || url.hash !== '') throw refuse('WORKFLOW_BASE_URL must not carry a query or a fragment');
  if (!url.pathname.endsWith('/')) url.pathname = `${url.pathname}/`;
  return url;
}

/**
 * Streams `body` on, one chunk per read (no buffering). When the client has left, the aborted
 * upstream body just ends instead of failing: nobody is listening, and the runtime would log it as an error.
 */
function endQuietlyWhenClientLeaves(
  body: ReadableStream<Uint8Array> | null,
  client: AbortSignal,
): ReadableStream<Uint8Array> | null {
  if (body === null) return null;
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const next = await reader.read();
          if (next.done) controller.close();
          else controller.enqueue(next.value);
        } catch (error) {
          if (client.aborted) controller.close();
          else controller.error(error);
        }
      },
      cancel: (reason) => reader.cancel(reason),
    },
    { highWaterMark: 0 },
  );
}

/**
 * The workflow proxy (`integration_type: n8n`): GET, HEAD, POST, PUT, PATCH, DELETE and OPTIONS on `/workflow/*` go to
 * `WORKFLOW_BASE_URL` with the prefix stripped (`/workflow/webhook/x` → `<base>/webhook/x`).
 * Bodies stream both ways without buffering; hop-by-hop headers are dropped; `X-Forwarded-*`
 * are set; `X-API-Key` and `X-Mesh-Key` stay here (`Authorization` and cookies go through:
 * the actor never uses them). Upstream down: 502 `upstream_unavailable`; no response headers
 * within the time-out: 504 `upstream_timeout`. Redirects are passed to the client, not followed.
 * @param options the upstream URL and the time-out
 * @example
 * createActorApp({ definition, routers: [workflowProxyRouter({ baseUrl: env.WORKFLOW_BASE_URL })] });
 */
export function workflowProxyRouter(options: WorkflowProxyOptions): ActorRouter {
  const base = upstreamBase(options.baseUrl);
  const timeoutMs = options.timeoutMs ?? DEFAULT_WORKFLOW_TIMEOUT_MS;
  if (!Number.isSafeInteger(timeoutMs) || timeoutMs <= 0)
    throw new Error(`timeoutMs must be a positive integer, got ${timeoutMs}`);
  const doFetch = options.fetch ?? fetch;
  return {
    name: 'workflow',
    operations: () =>
      PROXIED_METHODS.map((method) => ({
        method,
        path: `${WORKFLOW_PREFIX}/{path}`,
        operation: {
          operationId: `workflowProxy${method[0]?.toUpperCase()}${method.slice(1)}`,
          summary: `Proxy ${method.toUpperCase()} to the workflow tool`,
          parameters: [{ name: 'path', in: 'path', required: true, schema: { type: 'string' } }],
          responses: {
            default: { description: "The workflow tool's response, streamed" },
            404: problem('A path that leaves the workflow tool', ['not_found']),
            502: problem('Upstream unavailable', ['upstream_unavailable']),
            504: problem('Upstream timed out', ['upstream_timeout']),
          },
        },
      })),
    mount(app, ctx) {
      if (ctx.definition.features.integrationType !== 'n8n') {
        throw new Error(
          `workflowProxyRouter is mounted but features.integrationType is ${JSON.stringify(ctx.definition.features.integrationType)}: set integration_type to n8n or do not mount the proxy`,
        );
      }
      const trustIncoming = options.trustForwardedHeaders ?? ctx.config.platformMode;
      const publicPrefix = WORKFLOW_PREFIX;
      const methods = [...PROXIED_METHODS.map((method) => method.toUpperCase()), 'HEAD'];
      const proxy = new Hono<ActorEnv>().on(methods, `${WORKFLOW_PREFIX}/*`, async function workflowProxy(c) {
        const incoming = c.req.raw;
        const url = new URL(incoming.url);
        const target = new URL(
          `${base.href}${url.pathname.slice(WORKFLOW_PREFIX.length).replace(/^\//, '')}${url.search}`,
        );
        if (target.origin !== base.origin || !target.pathname.startsWith(base.pathname)) {
          throw new ActorError('not_found', { detail: 'The path leaves the workflow tool' });
        }
        const upstreamHeaders = proxyRequestHeaders(incoming.headers, {
          clientAddress: typeof c.env.runtime?.clientAddress === 'function' ? c.env.runtime.clientAddress() : undefined,
          proto: url.protocol.slice(0, -1),
          host: url.host,
          prefix: publicPrefix,
          trustIncoming,
          requestId: c.env.requestId,
        });
        // The request's server span is the upstream's parent (the caller's own traceparent when traces are off).
        for (const [name, value] of Object.entries(ctx.tracer.traceHeaders())) upstreamHeaders.set(name, value);
        const timer = new AbortController();
        // The clock starts once the upstream has the whole request, and stops at its response headers.
        let timeout: ReturnType<typeof setTimeout> | undefined;
        let answered = false;
        const startClock = () => {
          if (!answered) timeout ??= setTimeout(() => timer.abort(), timeoutMs);
        };
        const body =
          METHODS_WITHOUT_BODY.has(incoming.method) || incoming.body === null
            ? null
            : incoming.body.pipeThrough(new TransformStream({ flush: startClock }));
        if (body === null) startClock();
        const init: RequestInit & { duplex?: 'half' } = {
          method: incoming.method,
          headers: upstreamHeaders,
          redirect: 'manual',
          signal: AbortSignal.any([incoming.signal, timer.signal]),
          ...(body === null ? {} : { body, duplex: 'half' }),
        };
        let upstream: Response;
        try {
          upstream = await doFetch(target, init);
        } catch (error) {
          if (timer.signal.aborted) {
            throw new ActorError('upstream_timeout', {
              detail: `The workflow tool did not start its response within ${timeoutMs} ms of receiving the request`,
              cause: error,
            });
          }
          if (incoming.signal.aborted) throw error;
          const reason = error instanceof Error && error.cause instanceof Error ? error.cause : error;
          throw new ActorError('upstream_unavailable', {
            detail: 'The workflow tool could not be reached',
            cause: reason,
          });
        } finally {
          answered = true;
          clearTimeout(timeout);
        }
        const headers = proxyResponseHeaders(upstream.headers, base, publicPrefix);
        headers.set('X-Request-Id', c.env.requestId);
        return new Response(endQuietlyWhenClientLeaves(upstream.body, incoming.signal), {
          status: upstream.status,
          statusText: upstream.statusText,
          headers,
        });
      });
      app.route('/', proxy);
    },
  };
}
