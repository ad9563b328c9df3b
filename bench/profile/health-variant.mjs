// One step of the /health cost ladder (bench/profile/health-cost-ladder.ts): `node
// health-variant.mjs <depth>` serves GET /health on bare Hono with the first <depth> of the
// actor's middleware, in the order createActorApp mounts them (request id, in-flight
// tracking, metrics, 405 handling); depth 5 is the real example actor. Plain JavaScript over
// the built package (dist/), served like the actor's adapters serve it: Bun.serve on Bun,
// @hono/node-server on Node.
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { methodNotAllowed } from 'hono/method-not-allowed';
import { requestIdMiddleware } from '../../dist/src/middleware/request-id/index.js';
import { ActorLifecycle } from '../../dist/src/app/actor-lifecycle.js';
import { ActorMetrics } from '../../dist/src/app/actor-metrics.js';
import { createApp } from '../../dist/examples/hello-actor/src/app.js';
import { announceListening } from '../bare-hono/bare-app.mjs';

const ACTOR_DEPTH = 5;

function ladderApp(depth) {
  const app = new Hono();
  if (depth >= 1) app.use(requestIdMiddleware({ limitLength: 128 }));
  if (depth >= 2) {
    const lifecycle = new ActorLifecycle();
    app.use(async function trackInFlight(_c, next) {
      const leave = lifecycle.enter();
      try {
        await next();
      } finally {
        leave();
      }
    });
  }
  if (depth >= 3) app.use(new ActorMetrics().httpMiddleware);
  if (depth >= 4) app.use(methodNotAllowed({ app }));
  const startedAt = Date.now();
  const instanceId = crypto.randomUUID();
  app.get('/health', (c) =>
    c.json(
      { status: 'ok', version: '0.1.0', instance_id: instanceId, uptime_s: Math.floor((Date.now() - startedAt) / 1000), checks: { database: { status: 'pass', output: 'sqlite: reachable', kind: 'sqlite' } } },
      200,
      { 'Cache-Control': 'no-store' },
    ),
  );
  return app;
}

const depth = Number(process.argv[2] ?? 0);
if (!Number.isInteger(depth) || depth < 0 || depth > ACTOR_DEPTH) throw new Error(`depth must be 0 to ${ACTOR_DEPTH}, got ${process.argv[2]}`);
let app;
if (depth === ACTOR_DEPTH) {
  app = createApp({ ...process.env, LOG_LEVEL: 'warn' });
  await app.actor.start();
} else {
  app = ladderApp(depth);
}
const port = Number(process.env.PORT ?? 0);
if (globalThis.Bun) {
  const server = globalThis.Bun.serve({ fetch: app.fetch, port, hostname: '0.0.0.0', development: false });
  announceListening('bun', server.port);
  for (const signal of ['SIGTERM', 'SIGINT']) process.once(signal, () => server.stop(true).then(() => process.exit(0)));
} else {
  const server = serve({ fetch: app.fetch, port, hostname: '0.0.0.0' }, (info) => announceListening('node', info.port));
  for (const signal of ['SIGTERM', 'SIGINT']) process.once(signal, () => server.close(() => process.exit(0)));
}
