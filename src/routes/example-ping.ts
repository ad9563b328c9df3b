import { defineRoute } from './actor-route.js';
import { json } from './openapi-parts.js';

/** `GET /ping`: an example route, added to show that a route is one file plus its test. */
export const examplePingRoute = defineRoute(
  {
    method: 'get',
    path: '/ping',
    security: 'apiKey',
    operation: { operationId: 'ping', summary: 'Answers pong', responses: { 200: json('`{pong: true}`') } },
  },
  () =>
    function ping(c) {
      return c.json({ pong: true });
    },
);
