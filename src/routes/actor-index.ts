import { accepts } from 'hono/accepts';
import { html } from 'hono/html';
import type { ActorContext } from '../context/actor-context.js';
import { framedPageHeaders, STATIC_PAGE_POLICY } from '../core/html-page.js';
import { defineRoute } from '../route-kit/actor-route.js';
import { actorMetadataRoute } from './actor-info.js';
import { healthRoute } from './health.js';
import { docsRoute, openApiRoute } from './openapi.js';
import { playgroundRoute } from './playground.js';

/** The body of `GET /` as JSON: who the actor is and where its documented routes are. */
interface ActorIndex {
  readonly name: string;
  readonly slug: string;
  readonly version: string;
  readonly description: string;
  /** Relative links: `docs`, `health`, `openapi`, `metadata`, and `playground` when it is on. */
  readonly links: Readonly<Record<string, string>>;
}

/** The index of an actor: its card's name, version and description, and links to its documented routes. */
function actorIndex(ctx: ActorContext): ActorIndex {
  const { metadata } = ctx.definition;
  return {
    name: metadata.name,
    slug: metadata.slug,
    version: metadata.version,
    description: metadata.description,
    links: {
      docs: docsRoute.spec.path,
      health: healthRoute.spec.path,
      openapi: openApiRoute.spec.path,
      metadata: actorMetadataRoute.spec.path,
      ...(playgroundRoute.mountedWhen?.(ctx) === true ? { playground: playgroundRoute.spec.path } : {}),
    },
  };
}

/** The index as a small HTML page: every value escaped, no script, no external asset. */
async function indexPage(index: ActorIndex): Promise<string> {
  const links = Object.entries(index.links).map(
    ([name, href]) => html`<li><a href="${href}">${name}</a> <code>${href}</code></li>`,
  );
  const page = await html`<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${index.name}</title></head>
<body><main><h1>${index.name} <small>${index.version}</small></h1><p>${index.description}</p><ul>${links}</ul></main></body>
</html>
`;
  return page.toString();
}

/**
 * `GET /`: the actor's index (name, version, description, links to `/docs`, `/health`,
 * `/openapi.json`, `/api/actor/metadata`, and `/playground` when `PLAYGROUND_ENABLED`), as JSON,
 * or as a small HTML page when `Accept` prefers `text/html`. It reveals no more than the
 * metadata card, and sits behind the same API key.
 */
export const actorIndexRoute = defineRoute(
  {
    method: 'get',
    path: '/',
    security: 'apiKey',
    contract: 'always',
    operation: {
      operationId: 'index',
      summary: 'Index: name, version, description and links to the documented routes',
      responses: {
        200: {
          description: 'The index; a small HTML page when Accept prefers text/html',
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['name', 'slug', 'version', 'description', 'links'],
                properties: {
                  name: { type: 'string' },
                  slug: { type: 'string' },
                  version: { type: 'string' },
                  description: { type: 'string' },
                  links: { type: 'object', additionalProperties: { type: 'string' } },
                },
              },
            },
            'text/html': { schema: { type: 'string' } },
          },
        },
      },
    },
  },
  (ctx) => {
    const index = actorIndex(ctx);
    const page = indexPage(index);
    return async function actorIndexRoute(c) {
      const type = accepts(c, {
        header: 'Accept',
        supports: ['application/json', 'text/html'],
        default: 'application/json',
      });
      if (type !== 'text/html') return c.json(index);
      return c.body(await page, 200, {
        'Content-Type': 'text/html; charset=utf-8',
        ...framedPageHeaders(STATIC_PAGE_POLICY),
        'X-Content-Type-Options': 'nosniff',
        Vary: 'Accept',
      });
    };
  },
);
