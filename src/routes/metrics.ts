import { Hono } from 'hono';
import type { ActorContext, ActorEnv } from '../context/actor-context.js';

/** `GET /metrics`: the Prometheus text exposition of the actor's registry (`@hono/prometheus`'s `printMetrics`). */
export function metricsRoutes(ctx: ActorContext): Hono<ActorEnv> {
  return new Hono<ActorEnv>().get('/metrics', function metrics(c) {
    return ctx.metrics.respond(c);
  });
}
