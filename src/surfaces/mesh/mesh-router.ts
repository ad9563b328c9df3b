import { Hono } from 'hono';
import type { ActorContext, ActorEnv } from '../../context/actor-context.js';
import type { ActorRouter } from '../../context/actor-router.js';
import type { DocumentedOperation } from '../../context/documented-operation.js';
import { checkMeshDomain } from './mesh-domain.js';
import { MESH_KEY_HEADER, meshKeyAuth, parseMeshKeys } from './mesh-key-auth.js';

/** What a peer-read handler receives. */
export interface PeerRead {
  readonly ctx: ActorContext;
  readonly request: Request;
  /** Path parameters, e.g. `{city: "oslo"}` for `/forecast/:city`. */
  readonly params: Readonly<Record<string, string>>;
  readonly query: URLSearchParams;
}

/** A read-only route a sibling actor may call, mounted under `/api/<domain>`. */
export interface PeerRoute {
  /** Path below `/api/<domain>`, e.g. `/forecast/:city`. */
  readonly path: string;
  /** One line for `/openapi.json`. */
  readonly summary?: string;
  /** Answers a read: a JSON-serialisable value, or a `Response`. Throw `ActorError` to refuse. */
  handle(read: PeerRead): unknown;
}

/** Options of `meshRouter`. */
export interface MeshRouterOptions {
  /** The group's key: pass `env.MESH_KEY` (comma-separated for rotation). Empty refuses to start. */
  readonly meshKey: string | undefined;
  /** The actor's domain module; default (and it must equal) `definition.metadata.domain`. */
  readonly domain?: string;
  /** The actor's own read-only peer routes; `/_peer_check` is always there. */
  readonly routes?: readonly PeerRoute[];
}

/** The body of `GET /api/<domain>/_peer_check`. */
export interface PeerCheck {
  readonly status: 'ok';
  readonly actor: string;
  readonly version: string;
  readonly domain: string;
  readonly instance_id: string;
  readonly phase: string;
}

const PEER_PATH = /^(?:\/(?:[A-Za-z0-9_~-][A-Za-z0-9._~-]*|:[A-Za-z_][A-Za-z0-9_]*))+$/;

function checkRoutes(routes: readonly PeerRoute[]): void {
  const seen = new Set<string>();
  for (const route of routes) {
    if (!PEER_PATH.test(route.path))
      throw new Error(
        `Peer route ${JSON.stringify(route.path)} must look like /items or /items/:id (no dot segments, no trailing slash)`,
      );
    if (route.path === '/_peer_check') throw new Error('/_peer_check is built in; pick another peer route path');
    if (seen.has(route.path)) throw new Error(`Peer route ${route.path} is declared twice`);
    if (typeof route.handle !== 'function') throw new Error(`Peer route ${route.path} needs a handle(read) function`);
    seen.add(route.path);
  }
}

function peerOperations(domain: string, routes: readonly PeerRoute[]): DocumentedOperation[] {
  const responses = { 200: { description: 'JSON', content: { 'application/json': { schema: {} } } } };
  const operation = (path: string, operationId: string, summary: string): DocumentedOperation => {
    const params = [...path.matchAll(/:([A-Za-z_]\w*)/g)].map((match) => ({
      name: match[1],
      in: 'path',
      required: true,
      schema: { type: 'string' },
    }));
    return {
      method: 'get',
      path: `/api/${domain}${path.replace(/:([A-Za-z_]\w*)/g, '{$1}')}`,
      security: 'meshKey',
      operation: { operationId, summary, tags: ['fleet mesh'], parameters: params, responses },
    };
  };
  return [
    operation(
      '/_peer_check',
      'peerCheck',
      `Peer check: a sibling actor proves it holds the mesh key (${MESH_KEY_HEADER})`,
    ),
    ...routes.map((route, index) =>
      operation(route.path, `peerRead${index + 1}`, route.summary ?? `Peer read ${route.path}`),
    ),
  ];
}

/**
 * Peer reads (`fleet_mesh`): `GET /api/<domain>/_peer_check` plus the actor's own read-only
 * routes under `/api/<domain>/`, all guarded by `X-Mesh-Key` (DESIGN §4). Without a key it
 * throws at setup. The API key, when enabled, still applies before the mesh key.
 * @param options the mesh key, the domain and the peer routes
 * @example
 * meshRouter({ meshKey: env.MESH_KEY, routes: [{ path: '/forecast/:city', handle: ({ params }) => forecast(params.city) }] });
 */
export function meshRouter(options: MeshRouterOptions): ActorRouter {
  const keys = parseMeshKeys(options.meshKey);
  const routes = options.routes ?? [];
  checkRoutes(routes);
  if (options.domain !== undefined) checkMeshDomain(options.domain);
  const domainOf = (ctx: ActorContext) => options.domain ?? ctx.definition.metadata.domain;
  return {
    name: 'mesh',
    operations: (ctx) => peerOperations(domainOf(ctx), routes),
    mount(app, ctx) {
      if (!ctx.definition.features.fleetMesh)
        throw new Error(
          'meshRouter is mounted but features.fleetMesh is false: turn fleet_mesh on or do not mount the peer reads',
        );
      const domain = checkMeshDomain(domainOf(ctx));
      if (domain !== ctx.definition.metadata.domain)
        throw new Error(
          `meshRouter domain ${JSON.stringify(domain)} differs from the actor's domain ${JSON.stringify(ctx.definition.metadata.domain)}`,
        );
      if (keys.some((key) => key.length < 16))
        ctx.logger.warn('mesh_key_weak', { reason: 'a MESH_KEY shorter than 16 characters is easy to guess' });
      const peers = new Hono<ActorEnv>().use(meshKeyAuth(keys, ctx.logger));
      peers.get('/_peer_check', function peerCheck(c) {
        const { metadata } = ctx.definition;
        const body: PeerCheck = {
          status: 'ok',
          actor: metadata.slug,
          version: metadata.version,
          domain,
          instance_id: ctx.config.instanceId,
          phase: ctx.lifecycle.phase,
        };
        c.header('Cache-Control', 'no-store');
        return c.json(body);
      });
      for (const route of routes) {
        peers.get(route.path, async function peerRead(c) {
          const result = await route.handle({
            ctx,
            request: c.req.raw,
            params: c.req.param() as Record<string, string>,
            query: new URL(c.req.url).searchParams,
          });
          if (result instanceof Response) {
            const response = new Response(result.body, result);
            response.headers.set('X-Request-Id', c.env.requestId);
            return response;
          }
          c.header('Cache-Control', 'no-store');
          return c.json(result ?? null);
        });
      }
      app.route(`/api/${domain}`, peers);
    },
  };
}
