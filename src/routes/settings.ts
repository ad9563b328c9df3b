import { Hono } from 'hono';
import type { ActorContext, ActorEnv } from '../context/actor-context.js';
import { ActorError } from '../core/actor-error.js';
import { readJsonBody } from '../core/read-json-body.js';
import * as v from 'valibot';

/**
 * `PUT /settings` (a partial object of settings; validated as a whole, persisted, all or
 * nothing; 403 on the platform path) and `GET /settings/schema` (JSON Schema 2020-12).
 */
export function settingsRoutes(ctx: ActorContext): Hono<ActorEnv> {
  return new Hono<ActorEnv>()
    .put('/settings', async function updateSettings(c) {
      if (ctx.config.platformMode) {
        throw new ActorError('settings_managed_by_platform', {
          detail: 'This actor runs on the platform (ACTOR_PLATFORM=true); change its settings in the platform instead',
        });
      }
      const body = await readJsonBody(c.req.raw, v.unknown());
      const result = await ctx.settings.update(body, (merge) => ctx.store.updateSettingsOverrides(merge));
      ctx.logger.info('settings_updated', { applied: result.applied, restart_required: result.restart_required });
      return c.json(result);
    })
    .get('/settings/schema', function settingsSchema(c) {
      return c.json(ctx.settings.jsonSchema, 200, { 'Content-Type': 'application/schema+json' });
    });
}
