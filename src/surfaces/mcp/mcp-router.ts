import type { Context } from 'hono';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { ActorTool } from '../../agent/actor-tool.js';
import type { ActorContext, ActorEnv } from '../../context/actor-context.js';
import type { ActorRouter } from '../../context/actor-router.js';
import { ActorError } from '../../core/actor-error.js';
import { DEFAULT_TENANT } from '../../core/tenant-id.js';
import { refuseWhenNotServing } from '../../invoke/refuse-when-not-serving.js';
import { headerTenant } from '../../invoke/request-tenant.js';
import { limitRequestBody } from '../../middleware/body-limit/index.js';
import { refuseForeignOrigin } from '../../middleware/origin-check/index.js';
import { loadMcpServerSdk, type McpSdkImporter, type McpServerSdk } from './load-mcp-server-sdk.js';
import { createMcpActorServer } from './mcp-actor-server.js';
import { asAuthInfo } from './mcp-request-context.js';
import { McpSessions } from './mcp-sessions.js';

/** Options of `mcpRouter`. */
export interface McpRouterOptions {
  /** The actor's tools now (the agent builds them at start); the read-only ones are offered. */
  readonly tools: () => readonly ActorTool[];
  /** Imports the SDK; a test passes a failing one to play an actor without the package. */
  readonly importSdk?: McpSdkImporter;
}

interface McpSession {
  readonly server: Server;
  readonly transport: WebStandardStreamableHTTPServerTransport;
  close(): Promise<void>;
}

/** A JSON-RPC error answered at the HTTP level (no request id is known yet), as the SDK's transport answers its own. */
function jsonRpcError(c: Context<ActorEnv>, status: 400 | 404 | 413 | 503, code: number, message: string, headers: Record<string, string> = {}): Response {
  return c.json({ jsonrpc: '2.0', error: { code, message }, id: null }, status, headers);
}

/**
 * `/mcp` (`expose_mcp`): the actor as an MCP server over Streamable HTTP, on the SDK's Fetch
 * transport (JSON responses, so a call stays in flight until answered). Each `initialize` opens a
 * session (`Mcp-Session-Id`), at most `MCP_MAX_SESSIONS` at once (503 beyond), closed after
 * `MCP_SESSION_IDLE_MS` unused, on `DELETE`, and on shutdown. It sits behind the API key like
 * `/agent/invoke`, refuses a browser `Origin` that is not the actor's own on every method (403), answers 503 while the actor starts or drains, and refuses bodies over
 * `BODY_LIMIT_BYTES` with 413. The SDK is imported at start, so an actor without it refuses to start.
 */
export function mcpRouter(options: McpRouterOptions): ActorRouter {
  let sdk: McpServerSdk | undefined;
  let mounted: { readonly sessions: McpSessions<McpSession>; readonly ctx: ActorContext } | undefined;
  return {
    name: 'mcp',
    async start() {
      sdk ??= await loadMcpServerSdk(options.importSdk);
    },
    async close() {
      if (mounted === undefined) return;
      const closed = await mounted.sessions.closeAll();
      mounted.ctx.logger.info('mcp_sessions_closed', { sessions: closed });
    },
    operations: () => [
      {
        method: 'post',
        path: '/mcp',
        operation: {
          operationId: 'mcp',
          summary: 'MCP Streamable HTTP: the JSON-RPC messages of an MCP client (tool chat, the read-only domain tools, resources actor://metadata, actor://health, actor://stats)',
          responses: { 200: { description: 'A JSON-RPC response, with Mcp-Session-Id after initialize' }, 404: { description: 'Unknown or expired session' }, 413: { description: 'Body over BODY_LIMIT_BYTES' }, 503: { description: 'Starting, draining, or MCP_MAX_SESSIONS reached' } },
        },
      },
      { method: 'delete', path: '/mcp', operation: { operationId: 'mcpEndSession', summary: 'Ends the MCP session named by Mcp-Session-Id', responses: { 200: { description: 'Session ended' } } } },
    ],
    mount(app, ctx: ActorContext) {
      const { MCP_MAX_SESSIONS: maxSessions, MCP_SESSION_IDLE_MS: idleMs } = ctx.environment;
      const table = new McpSessions<McpSession>({ maxSessions, idleMs });
      mounted = { sessions: table, ctx };
      const maxSize = ctx.config.bodyLimitBytes;
      // Sessions being initialized now: they count against the cap before the table holds them.
      let opening = 0;

      const openSession = (loaded: McpServerSdk): McpSession => {
        const transport: WebStandardStreamableHTTPServerTransport = new loaded.WebStandardStreamableHTTPServerTransport({
          sessionIdGenerator: () => crypto.randomUUID(),
          enableJsonResponse: true,
          maxRequestBodySize: maxSize,
          onsessioninitialized: (id) => table.add(id, session),
          onsessionclosed: (id) => table.remove(id),
        });
        const server = createMcpActorServer(loaded, ctx, { tools: options.tools, sessionId: () => transport.sessionId ?? '' });
        const session: McpSession = { server, transport, close: () => server.close() };
        return session;
      };

      app.use(
        '/mcp',
        refuseForeignOrigin({ trustForwardedHost: ctx.config.platformMode }),
        limitRequestBody({ maxSize, onError: (c) => jsonRpcError(c, 413, -32000, `Request body exceeds the ${maxSize}-byte limit (BODY_LIMIT_BYTES)`) }),
      );
      app.all('/mcp', async function mcp(c: Context<ActorEnv>): Promise<Response> {
        if (c.req.method !== 'POST' && c.req.method !== 'DELETE') {
          // No server-initiated messages: the optional GET stream is not offered (the specification allows 405).
          throw new ActorError(405, 'method_not_allowed', 'Method not allowed', { detail: `${c.req.method} is not allowed on /mcp`, headers: { Allow: 'POST, DELETE' } });
        }
        refuseWhenNotServing(ctx.lifecycle);
        if (sdk === undefined) throw new Error('The /mcp router was not started');
        const authInfo = asAuthInfo({
          requestId: c.env.requestId,
          tenantId: headerTenant(c.req.header('X-Tenant-Id')) ?? DEFAULT_TENANT,
          signal: c.req.raw.signal,
          keepInFlight: c.env.keepInFlight,
        });
        const sessionId = c.req.header('Mcp-Session-Id');
        if (sessionId !== undefined) {
          const session = table.use(sessionId);
          if (session === undefined) return jsonRpcError(c, 404, -32001, 'Session not found: it ended, expired or never existed; initialize a new one');
          return session.transport.handleRequest(c.req.raw, { authInfo });
        }
        if (c.req.method !== 'POST') return jsonRpcError(c, 400, -32000, 'Bad Request: Mcp-Session-Id header is required');
        if (!table.hasRoom(opening)) {
          ctx.logger.warn('mcp_sessions_full', { max_sessions: maxSessions });
          return jsonRpcError(c, 503, -32000, `Too many MCP sessions (MCP_MAX_SESSIONS=${maxSessions}); end one with DELETE /mcp or try again later`, { 'Retry-After': '5' });
        }
        const session = openSession(sdk);
        opening += 1;
        try {
          await session.server.connect(session.transport);
          const response = await session.transport.handleRequest(c.req.raw, { authInfo });
          if (session.transport.sessionId === undefined) await session.close();
          return response;
        } finally {
          opening -= 1;
        }
      });
    },
  };
}
