import { ActorError } from '../../src/index.js';
import type { ActorPool } from '../actor-pool.js';
import { poolOf } from './external-edge.js';
import { forwardedRequest, relayedResponse } from './forwarded-request.js';
import { GATEWAY_PATHS } from './gateway-paths.js';
import { sendToReplica } from './send-to-replica.js';

/** The prefix of the panel routes in an actor's `contract.endpoints`. */
const PANEL_PREFIX = '/panel/';

/** The panel slugs an instance declares, when it mounts its panels (`include_panel`). */
export function panelSlugs(pool: Pick<ActorPool, 'config'>): string[] {
  return pool.config.features.include_panel ? pool.config.panels.map((panel) => panel.slug) : [];
}

/** What the relay needs of the gateway. */
export interface PanelRelayServices {
  readonly pools: ReadonlyMap<string, ActorPool>;
  /** The tenant the owner's panels are opened for (`X-Tenant-Id`). */
  readonly ownerTenant: string;
}

/**
 * Answers `/relay/<ref>/<rest>` for the owner (the caller checked the owner's credentials):
 * `rest` must be a panel route the instance's `contract.endpoints` declares (`/panel/{slug}`,
 * its `/data` and `/action`) for a slug of its `panels`, with that route's method; it goes to
 * the next ready replica without the owner's credentials, with `X-Forwarded-Prefix:
 * /relay/<ref>`. The panel page builds every URL from its own location, so it works under the
 * prefix unchanged: nothing in it is rewritten.
 * @param services the pools and the owner's tenant
 * @param request the owner's request
 * @param ref the instance ref from the path
 * @param rest the path below `/relay/<ref>`, e.g. `/panel/stats/data`
 * @param requestId the gateway's request id
 */
export async function answerRelay(
  services: PanelRelayServices,
  request: Request,
  ref: string,
  rest: string,
  requestId: string,
): Promise<Response> {
  const pool = poolOf(services.pools, ref);
  const slug = rest.startsWith(PANEL_PREFIX)
    ? decodeURIComponent(rest.slice(PANEL_PREFIX.length).split('/')[0] ?? '')
    : '';
  const slugs = panelSlugs(pool);
  if (slug === '')
    throw new ActorError('not_found', {
      detail: `The relay serves only the panels of ${ref}, under ${GATEWAY_PATHS.relay}/${ref}${PANEL_PREFIX}<slug>`,
    });
  if (!slugs.includes(slug))
    throw new ActorError('unknown_panel', {
      detail: `${ref} has ${slugs.length === 0 ? 'no panels' : `the panels ${slugs.join(', ')}`}, not ${JSON.stringify(slug)}`,
    });
  const routes = pool.config.contract.endpoints
    .filter((endpoint) => endpoint.path.startsWith(PANEL_PREFIX))
    .map((endpoint) => ({ method: endpoint.method, path: endpoint.path.replace('{slug}', encodeURIComponent(slug)) }));
  const matching = routes.filter((route) => route.path === rest);
  if (matching.length === 0) throw new ActorError('not_found', { detail: `${rest} is no panel route of ${ref}` });
  if (!matching.some((route) => route.method === request.method || route.method === 'ANY')) {
    const allow = matching.map((route) => route.method).join(', ');
    throw new ActorError('method_not_allowed', { detail: `${rest} takes ${allow}`, headers: { Allow: allow } });
  }
  const search = new URL(request.url).search;
  const facts = {
    actorPath: rest + search,
    tenant: services.ownerTenant,
    prefix: `${GATEWAY_PATHS.relay}/${encodeURIComponent(ref)}`,
    requestId,
  };
  return relayedResponse(await sendToReplica(pool, forwardedRequest(request, facts)));
}
