import { Hono } from 'hono';
import type { ActorEnv } from '../context/actor-context.js';
import { buildActorContext } from './build-actor-context.js';
import type { CreateActorAppOptions } from './create-actor-app-options.js';
import { apiKeyRefusal } from './api-key-refusal.js';
import { definitionRouters } from './definition-routers.js';
import { edgeRefusals } from './edge-refusals.js';
import { mapActorErrors } from './map-actor-errors.js';
import { mountActorRoutes } from './mount-actor-routes.js';
import { observeRequests, type ActorFetch } from './observe-requests.js';
import { requestGuard } from './request-guard.js';
import { runActorLifecycle, type ActorRuntime } from './run-actor-lifecycle.js';
import { traceRequests } from './trace-requests.js';
import { healthRoute } from '../routes/health.js';
import { readyRoute } from '../routes/ready.js';
import { metricsRoute } from '../routes/metrics.js';
import { honoPath } from '../route-kit/actor-route.js';

/** Probes and scrapes: called every few seconds by the platform, they would bury the traces that matter. */
const UNTRACED_ROUTES: ReadonlySet<string> = new Set(
  [healthRoute, readyRoute, metricsRoute].map((route) => honoPath(route.spec.path)),
);

/**
 * A Hono app serving the actor surface, with its runtime controls under `actor`. Its `fetch`
 * (and `request`, which calls it) gives each request its id, tracking and metrics before Hono
 * routes it: serve the app through its own `fetch`, not by mounting its routes elsewhere.
 */
export type ActorApp = Omit<Hono<ActorEnv>, 'fetch'> & { readonly fetch: ActorFetch; readonly actor: ActorRuntime };

/**
 * Builds an actor: mounts the always-present HTTP surface on Hono (Fetch API only), plus what
 * its definition declares — the OAuth providers, and the panels, peer reads and workflow proxy
 * its template options turn on — so it serves what its emitted configuration says. Call
 * `app.actor.start()` (the adapters do) before serving invokes.
 * @example
 * const app = createActorApp({ definition });
 * await app.actor.start();
 * const res = await app.request('/health');
 */
export function createActorApp(options: CreateActorAppOptions): ActorApp {
  const { ctx, agent, database, env, oauth, tracing } = buildActorContext(options);
  oauth?.bind?.(ctx);
  const explicit = options.routers ?? [];
  const tools = () => agent?.tools ?? (Array.isArray(options.tools) ? options.tools : []);
  const routers = [
    ...definitionRouters(options.definition, env, { peerReads: options.peerReads ?? {}, tools }, explicit),
    ...explicit,
  ];
  const app = new Hono<ActorEnv>();
  const { publicPaths } = mountActorRoutes(app, ctx, oauth, routers);
  mapActorErrors(app, ctx.logger);
  const runtime = runActorLifecycle(ctx, database, agent, routers, tracing);
  const { apiKeys } = ctx.config;
  const refusals = edgeRefusals(
    app,
    ctx,
    routers,
    apiKeys.length > 0 ? apiKeyRefusal({ keys: apiKeys, publicPaths }) : undefined,
  );
  const observed = observeRequests(app, {
    lifecycle: ctx.lifecycle,
    metrics: ctx.metrics.http,
    guard: requestGuard(ctx.config),
    refusals,
  });
  return Object.assign(app, { fetch: traceRequests(app, observed, ctx.tracer, UNTRACED_ROUTES), actor: runtime });
}
