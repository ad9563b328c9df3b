// Bare Hono on Bun through Bun.serve, the server the actor's Bun adapter uses.
import { announceListening, createBareApp } from './bare-app.mjs';

const server = Bun.serve({ fetch: createBareApp().fetch, port: Number(process.env.PORT ?? 0), hostname: '0.0.0.0', development: false });
announceListening('bun', server.port);
for (const signal of ['SIGTERM', 'SIGINT']) process.once(signal, () => server.stop(true).then(() => process.exit(0)));
