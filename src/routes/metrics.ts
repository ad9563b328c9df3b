import { defineRoute } from '../route-kit/actor-route.js';

/** `GET /metrics`: the Prometheus text exposition of the actor's registry (`@hono/prometheus`'s `printMetrics`). */
export const metricsRoute = defineRoute(
  {
    method: 'get',
    path: '/metrics',
    security: 'open',
    contract: 'required',
    operation: {
      operationId: 'metrics',
      summary: 'Prometheus metrics',
      responses: {
        200: { description: 'Text exposition format 0.0.4', content: { 'text/plain': { schema: { type: 'string' } } } },
      },
    },
  },
  (ctx) =>
    function metrics(c) {
      return ctx.metrics.respond(c);
    },
);
