import * as v from 'valibot';
import { TenantId } from '../../core/tenant-id.js';
import { ActorError } from '../../core/actor-error.js';
import { readStats, statsBody } from '../../routes/stats.js';
import { panelAction, type Panel } from './panel-definition.js';

/**
 * The example owner panel: the actor's statistics (the same numbers as `GET /stats`, plus the
 * phase and the counters still waiting in memory), with two actions — look up one tenant, and
 * flush the waiting counters to the database now.
 * @param options another slug or title
 * @example
 * panelRouter({ panels: [statsPanel()] });
 */
export function statsPanel(options: { slug?: string; title?: string } = {}): Panel {
  return {
    slug: options.slug ?? 'stats',
    title: options.title ?? 'Statistics',
    description: 'What this actor has done since it started counting.',
    async data(ctx) {
      const snapshot = await readStats(ctx);
      return {
        actor: ctx.definition.metadata.name,
        version: ctx.definition.metadata.version,
        phase: ctx.lifecycle.phase,
        instance_id: ctx.config.instanceId,
        ...statsBody(snapshot),
        pending_counters: ctx.stats.pending,
      };
    },
    actions: {
      tenant_stats: panelAction({
        title: 'Look up a tenant',
        description: 'The counters of one tenant (zeros for a tenant not seen yet).',
        payload: v.strictObject({ tenant_id: TenantId }),
        async run({ tenant_id }, ctx) {
          return { tenant_id, ...statsBody(await readStats(ctx, tenant_id)) };
        },
      }),
      flush_stats: panelAction({
        title: 'Flush counters',
        description: 'Writes the counters waiting in memory to the database now.',
        payload: v.strictObject({}),
        async run(_payload, ctx) {
          const before = ctx.stats.pending;
          try {
            await ctx.turns.flush();
          } catch (error) {
            throw new ActorError('store_unavailable', {
              detail:
                'The counters could not be flushed: the database is unreachable; they stay in memory and are retried',
              cause: error,
            });
          }
          return { flushed: before - ctx.stats.pending, pending: ctx.stats.pending };
        },
      }),
    },
  };
}
