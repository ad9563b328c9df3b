// Bare Hono on Bun through Bun.serve, the server the actor's Bun adapter uses
// (`bun main.bun.mjs echo`: the invoke echoes the request, no reply-shape work).
import { announceListening, createBareApp, invokeKind } from './bare-app.mjs';

const server = Bun.serve({ fetch: createBareApp(invokeKind(process.argv)).fetch, port: Number(process.env.PORT ?? 0), hostname: '0.0.0.0', development: false });
announceListening('bun', server.port);
for (const signal of ['SIGTERM', 'SIGINT']) process.once(signal, () => server.stop(true).then(() => process.exit(0)));
