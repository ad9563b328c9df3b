import { Hono } from 'hono';
import type { ActorContext, ActorEnv } from '../context/actor-context.js';
import { htmlPageHeaders, randomNonce } from '../core/html-page.js';
import { renderPlaygroundPage } from './playground-page.js';

/** The path of the playground page; public under API keys (the page is static, every call it makes carries the key). */
export const PLAYGROUND_PATH = '/playground';

/**
 * `GET /playground`: the chat playground page (mounted only when `PLAYGROUND_ENABLED`), with a
 * fresh CSP nonce per response. The page holds no data: it asks for the API key and sends it
 * as `X-API-Key` on every call, so the routes it calls keep their own authentication.
 */
export function playgroundRoutes(ctx: ActorContext): Hono<ActorEnv> {
  const name = ctx.definition.metadata.name;
  return new Hono<ActorEnv>().get(PLAYGROUND_PATH, async function playgroundPage(c) {
    const nonce = randomNonce();
    return c.body(await renderPlaygroundPage({ name, nonce }), 200, htmlPageHeaders(nonce));
  });
}
