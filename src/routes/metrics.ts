import { Hono } from 'hono';
import type { ActorContext, ActorEnv } from '../context/actor-context.js';

/** `GET /metrics`: the Prometheus text exposition of the actor's registry. */
export function metricsRoutes(ctx: ActorContext): Hono<ActorEnv> {
  return new Hono<ActorEnv>().get('/metrics', async function metrics(c) {
    const text = await ctx.metrics.render();
    return c.body(text, 200, { 'Content-Type': 'text/plain; version=0.0.4; charset=utf-8', 'Cache-Control': 'no-store' });
  });
}
