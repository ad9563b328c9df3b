import type { MiddlewareHandler } from 'hono';
import { acceptNames } from '../../core/accept-names.js';
import { PROBLEM_CONTENT_TYPE, type ProblemDocument } from '../../core/problem-response.js';

/** The JSON-RPC code of a refusal answered at the HTTP level, as the SDK's transport answers its own. */
const SERVER_ERROR = -32000;

/**
 * The body of a refusal an MCP client can show: a JSON-RPC error (id `null`: no request id is
 * read yet) whose message is the problem's title, detail and code, and whose `data` is the
 * whole problem document.
 * @param problem the problem the actor answered
 */
function jsonRpcRefusal(problem: ProblemDocument) {
  const message = `${problem.title}${problem.detail === undefined ? '' : `: ${problem.detail}`} (${problem.code})`;
  return { jsonrpc: '2.0' as const, id: null, error: { code: SERVER_ERROR, message, data: problem } };
}

/**
 * Rewrites the problem+json refusals of `/mcp` (401 of the API key, 403 of the Origin check,
 * 400, 405, 503, …) for an MCP client: a request that accepts `text/event-stream` (as every
 * Streamable HTTP client must) and does not name `application/problem+json` gets the same status
 * and headers with a JSON-RPC error body (`jsonRpcRefusal`) as `application/json`, which the MCP
 * Python client reads and shows, where it reports any other error body only as "Server returned
 * an error response". Mount it before the API-key check so it sees that refusal too.
 */
export function mcpRefusalsAsJsonRpc(): MiddlewareHandler {
  return async function mcpRefusalsAsJsonRpcMiddleware(c, next) {
    await next();
    const accept = c.req.header('Accept');
    if (!acceptNames(accept, 'text/event-stream') || acceptNames(accept, PROBLEM_CONTENT_TYPE)) return;
    if (c.res.headers.get('Content-Type') !== PROBLEM_CONTENT_TYPE || c.req.method === 'HEAD') return;
    const problem = (await c.res.json()) as ProblemDocument;
    // Hono keeps the refusal's other headers (WWW-Authenticate, Allow, X-Request-Id) on the new response.
    c.res = new Response(JSON.stringify(jsonRpcRefusal(problem)), {
      status: c.res.status,
      headers: { 'Content-Type': 'application/json' },
    });
  };
}
