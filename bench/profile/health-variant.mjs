// One step of the /health cost ladder (bench/profile/health-cost-ladder.ts): `node
// health-variant.mjs <step>` serves GET /health as
// - `bare`: bare Hono;
// - `hono-prometheus`: bare Hono behind @hono/prometheus's `registerMetrics` middleware (its
//   per-request counting, into a prom-client registry);
// - `observer`: bare Hono behind the actor's request observer (request id, in-flight tracking,
//   HTTP metrics, X-Request-Id) at the fetch edge;
// - `actor`: the real example actor.
// Plain JavaScript over the built package (dist/), served like the actor's adapters serve it:
// Bun.serve on Bun, @hono/node-server on Node, with the adapters' request bindings.
import { serve } from '@hono/node-server';
import { prometheus } from '@hono/prometheus';
import { Hono } from 'hono';
import { Registry } from 'prom-client';
import { ActorLifecycle } from '../../dist/src/core/actor-lifecycle.js';
import { ActorMetrics } from '../../dist/src/context/actor-metrics.js';
import { observeRequests } from '../../dist/src/app/observe-requests.js';
import { NodeRequestBindings } from '../../dist/src/adapter/node/node-request-bindings.js';
import { bunRequestBindings } from '../../dist/src/adapter/bun/bun-request-bindings.js';
import { createApp } from '../../dist/examples/hello-actor/src/app.js';
import { announceListening, createBareApp } from '../bare-hono/bare-app.mjs';

/** Builds the `fetch` of each step. */
const STEPS = {
  bare: async () => createBareApp().fetch,
  'hono-prometheus': async () => {
    const { registerMetrics } = prometheus({ registry: new Registry() });
    return new Hono().use(registerMetrics).route('/', createBareApp()).fetch;
  },
  observer: async () => observeRequests(createBareApp(), { lifecycle: new ActorLifecycle(), metrics: new ActorMetrics().http }),
  actor: async () => {
    const app = createApp({ ...process.env, LOG_LEVEL: 'warn' });
    await app.actor.start();
    return app.fetch;
  },
};

const step = process.argv[2] ?? 'bare';
if (!(step in STEPS)) throw new Error(`step must be one of ${Object.keys(STEPS).join(', ')}, got ${step}`);
const fetch = await STEPS[step]();
const port = Number(process.env.PORT ?? 0);
if (globalThis.Bun) {
  const server = globalThis.Bun.serve({ fetch: (request, bun) => fetch(request, bunRequestBindings(bun, request)), port, hostname: '0.0.0.0', development: false });
  announceListening('bun', server.port);
  for (const signal of ['SIGTERM', 'SIGINT']) process.once(signal, () => server.stop(true).then(() => process.exit(0)));
} else {
  const server = serve({ fetch: (request, node) => fetch(request, new NodeRequestBindings(node.incoming)), port, hostname: '0.0.0.0' }, (info) => announceListening('node', info.port));
  for (const signal of ['SIGTERM', 'SIGINT']) process.once(signal, () => server.close(() => process.exit(0)));
}
