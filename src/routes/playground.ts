import { htmlPageHeaders, randomNonce } from '../core/html-page.js';
import { defineRoute } from '../route-kit/actor-route.js';
import { htmlPage } from '../route-kit/openapi-parts.js';
import { renderPlaygroundPage } from './playground-page.js';

/**
 * `GET /playground`: the chat playground page (mounted only when `PLAYGROUND_ENABLED`), with a
 * fresh CSP nonce per response. The page holds no data: it asks for the API key and sends it
 * as `X-API-Key` on every call, so the routes it calls keep their own authentication.
 */
export const playgroundRoute = defineRoute(
  {
    method: 'get',
    path: '/playground',
    security: 'open',
    operation: {
      operationId: 'playground',
      summary: 'The chat playground page (PLAYGROUND_ENABLED); every call it makes needs the key',
      responses: { 200: htmlPage('HTML page') },
    },
  },
  (ctx) => {
    const name = ctx.definition.metadata.name;
    const keyRequired = ctx.environment.API_KEY_ENABLED;
    return async function playgroundPage(c) {
      const nonce = randomNonce();
      return c.body(await renderPlaygroundPage({ name, nonce, keyRequired }), 200, htmlPageHeaders(nonce));
    };
  },
  (ctx) => ctx.environment.PLAYGROUND_ENABLED,
);
