import { defineRoute } from './actor-route.js';
import { json } from './openapi-parts.js';

/** `GET /example-ping`: an example route, added to show what adding a route takes. */
export const examplePingRoute = defineRoute(
  { method: 'get', path: '/example-ping', security: 'open', operation: { operationId: 'examplePing', summary: 'Example: answers pong', responses: { 200: json('pong', { type: 'object', required: ['pong'], properties: { pong: { const: true } } }) } } },
  () =>
    function examplePing(c) {
      return c.json({ pong: true });
    },
);
