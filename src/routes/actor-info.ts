import type { ActorContext } from '../context/actor-context.js';
import { ActorError } from '../core/actor-error.js';
import { defineRoute } from '../route-kit/actor-route.js';
import { json, problem } from '../route-kit/openapi-parts.js';

async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** The marketplace card of `GET /api/actor/metadata` (also the MCP resource `actor://metadata`). */
export function metadataCard(ctx: ActorContext) {
  const { metadata, features } = ctx.definition;
  return {
    name: metadata.name,
    slug: metadata.slug,
    version: metadata.version,
    description: metadata.description,
    domain: metadata.domain,
    tags: [...metadata.tags],
    icon: metadata.icon ?? null,
    capabilities: {
      streaming: true,
      tools: true,
      panel: features.includePanel,
      fleet_mesh: features.fleetMesh,
      workflow: features.integrationType === 'n8n',
    },
  };
}

/** `GET /api/actor/metadata`: the marketplace card. */
export const actorMetadataRoute = defineRoute(
  {
    method: 'get',
    path: '/api/actor/metadata',
    security: 'apiKey',
    contract: 'recommended',
    operation: { operationId: 'metadata', summary: 'Marketplace card', responses: { 200: json('The card') } },
  },
  (ctx) => {
    const card = metadataCard(ctx);
    return function actorMetadata(c) {
      return c.json(card);
    };
  },
);

/** `GET /api/actor/platform-config`: the baked `src/platform/config.json` with a strong `ETag`; `If-None-Match` gets 304. */
export const platformConfigRoute = defineRoute(
  {
    method: 'get',
    path: '/api/actor/platform-config',
    security: 'apiKey',
    contract: 'recommended',
    operation: {
      operationId: 'platformConfig',
      summary: 'The baked canonical configuration',
      parameters: [{ name: 'If-None-Match', in: 'header', required: false, schema: { type: 'string' } }],
      responses: {
        200: json('src/platform/config.json'),
        304: { description: 'Not modified' },
        404: problem('No configuration baked', ['platform_config_missing']),
      },
    },
  },
  (ctx) => {
    const configText =
      ctx.platformConfig === undefined ? undefined : `${JSON.stringify(ctx.platformConfig, null, 2)}\n`;
    // Hashed on the first request: a start does not wait on WebCrypto's first digest.
    let etag: Promise<string> | undefined;
    return async function platformConfig(c) {
      if (configText === undefined) {
        throw new ActorError('platform_config_missing', {
          detail: 'This actor was started without src/platform/config.json; run `actorkit validate` to emit it',
        });
      }
      const tag = await (etag ??= sha256Hex(configText).then((hex) => `"${hex.slice(0, 32)}"`));
      const headers = { ETag: tag, 'Cache-Control': 'no-cache' };
      const ifNoneMatch = c.req.header('If-None-Match');
      if (
        ifNoneMatch
          ?.split(',')
          .some((candidate) => candidate.trim().replace(/^W\//, '') === tag || candidate.trim() === '*')
      ) {
        return c.body(null, 304, headers);
      }
      return c.body(configText, 200, { ...headers, 'Content-Type': 'application/json' });
    };
  },
);
