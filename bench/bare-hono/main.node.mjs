// Bare Hono on Node through @hono/node-server, the server the actor's Node adapter uses
// (`node main.node.mjs echo`: the invoke echoes the request, no reply-shape work).
import { serve } from '@hono/node-server';
import { announceListening, createBareApp, invokeKind } from './bare-app.mjs';

const server = serve({ fetch: createBareApp(invokeKind(process.argv)).fetch, port: Number(process.env.PORT ?? 0), hostname: '0.0.0.0' }, (info) => announceListening('node', info.port));
for (const signal of ['SIGTERM', 'SIGINT']) process.once(signal, () => server.close(() => process.exit(0)));
