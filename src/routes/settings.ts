import type { ActorContext } from '../context/actor-context.js';
import { ActorError } from '../core/actor-error.js';
import { readJsonBody } from '../core/read-json-body.js';
import * as v from 'valibot';
import { defineRoute } from '../route-kit/actor-route.js';
import { json, problem } from '../route-kit/openapi-parts.js';

/**
 * `PUT /settings`: a partial object of settings, validated as a whole, persisted, all or
 * nothing; 403 on the platform path.
 */
export const updateSettingsRoute = defineRoute(
  {
    method: 'put',
    path: '/settings',
    security: 'apiKey',
    bodyLimit: true,
    contract: 'recommended',
    operation: {
      operationId: 'updateSettings',
      summary: 'Update settings (standalone only)',
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: {
              $ref: '#/components/schemas/SettingsUpdate',
              description: 'Some settings, as GET /settings/schema describes them; no other key',
            },
          },
        },
      },
      responses: {
        200: json('`{settings, applied, restart_required}`; secrets masked'),
        400: problem('Malformed JSON', ['invalid_json']),
        403: problem('Managed by the platform', ['settings_managed_by_platform']),
        413: problem('Body over BODY_LIMIT_BYTES', ['payload_too_large']),
        415: problem('Not JSON', ['unsupported_media_type']),
        422: problem('Invalid settings; nothing changed', ['validation_failed']),
      },
    },
  },
  (ctx: ActorContext) =>
    async function updateSettings(c) {
      if (ctx.config.platformMode) {
        throw new ActorError('settings_managed_by_platform', {
          detail: 'This actor runs on the platform (ACTOR_PLATFORM=true); change its settings in the platform instead',
        });
      }
      const body = await readJsonBody(c.req.raw, v.unknown());
      const result = await ctx.settings.update(body, (merge) => ctx.store.updateSettingsOverrides(merge));
      ctx.logger.info('settings_updated', { applied: result.applied, restart_required: result.restart_required });
      return c.json(result);
    },
);

/**
 * `GET /settings`: the values the actor runs with now (restart-required keys as they were at
 * the start), every secret masked; what the playground's settings form shows.
 */
export const currentSettingsRoute = defineRoute(
  {
    method: 'get',
    path: '/settings',
    security: 'apiKey',
    contract: 'always',
    operation: {
      operationId: 'currentSettings',
      summary: 'The settings the actor runs with; secrets masked',
      responses: { 200: json('`{settings}`; secrets masked') },
    },
  },
  (ctx) =>
    function currentSettings(c) {
      return c.json({ settings: ctx.settings.redacted() });
    },
);

/** `GET /settings/schema`: the JSON Schema 2020-12 of the settings. */
export const settingsSchemaRoute = defineRoute(
  {
    method: 'get',
    path: '/settings/schema',
    security: 'apiKey',
    contract: 'always',
    operation: {
      operationId: 'settingsSchema',
      summary: 'JSON Schema 2020-12 of the settings',
      responses: {
        200: { description: 'JSON Schema', content: { 'application/schema+json': { schema: { type: 'object' } } } },
      },
    },
  },
  (ctx) =>
    function settingsSchema(c) {
      return c.json(ctx.settings.jsonSchema, 200, { 'Content-Type': 'application/schema+json' });
    },
);
