// One step of the /health cost ladder (bench/profile/health-cost-ladder.ts): `node
// health-variant.mjs <depth>` serves GET /health on bare Hono (depth 0), on bare Hono behind
// the actor's request observer (depth 1: request id, in-flight tracking, HTTP metrics,
// X-Request-Id), or as the real example actor (depth 2). Plain JavaScript over the built
// package (dist/), served like the actor's adapters serve it: Bun.serve on Bun,
// @hono/node-server on Node.
import { serve } from '@hono/node-server';
import { ActorLifecycle } from '../../dist/src/app/actor-lifecycle.js';
import { ActorMetrics } from '../../dist/src/app/actor-metrics.js';
import { observeRequests } from '../../dist/src/app/observe-requests.js';
import { createApp } from '../../dist/examples/hello-actor/src/app.js';
import { announceListening, createBareApp } from '../bare-hono/bare-app.mjs';

const ACTOR_DEPTH = 2;

const depth = Number(process.argv[2] ?? 0);
if (!Number.isInteger(depth) || depth < 0 || depth > ACTOR_DEPTH) throw new Error(`depth must be 0 to ${ACTOR_DEPTH}, got ${process.argv[2]}`);
let fetch;
if (depth === ACTOR_DEPTH) {
  const app = createApp({ ...process.env, LOG_LEVEL: 'warn' });
  await app.actor.start();
  fetch = app.fetch;
} else {
  const app = createBareApp();
  fetch = depth === 1 ? observeRequests(app, { lifecycle: new ActorLifecycle(), metrics: new ActorMetrics().http }) : app.fetch;
}
const port = Number(process.env.PORT ?? 0);
if (globalThis.Bun) {
  const server = globalThis.Bun.serve({ fetch, port, hostname: '0.0.0.0', development: false });
  announceListening('bun', server.port);
  for (const signal of ['SIGTERM', 'SIGINT']) process.once(signal, () => server.stop(true).then(() => process.exit(0)));
} else {
  const server = serve({ fetch, port, hostname: '0.0.0.0' }, (info) => announceListening('node', info.port));
  for (const signal of ['SIGTERM', 'SIGINT']) process.once(signal, () => server.close(() => process.exit(0)));
}
