// The local platform's HTTP front: the external API edge, the owner's panel relay, the
// reconciliation of `/stats` and the owner's dashboard, over the supervisor's actor pools.
import { Hono, type Context } from 'hono';
import { ActorError, problemResponse } from '../../src/index.js';
import {
  htmlPageHeaders,
  randomNonce,
  hasForeignOrigin,
  requestIdFor,
  originNotAllowedError,
  constantTimeEqual,
} from '../../src/http/index.js';
import type { ActorPool } from '../actor-pool.js';
import { AnsweredInvokes } from './answered-invokes.js';
import { BackgroundRunWatch } from './background-runs.js';
import { renderDashboardPage, renderLoginPage } from './dashboard-page.js';
import { EdgeKeyring } from './edge-keys.js';
import { answerEdge, hasEdge, poolOf } from './external-edge.js';
import { GATEWAY_PATHS } from './gateway-paths.js';
import { generateOwnerToken, ownerCookie, ownerCredentialOf, requireOwner } from './owner-credentials.js';
import { answerRelay } from './panel-relay.js';
import { platformActors } from './platform-actors.js';
import { Reconciler } from './reconciler.js';
import type { ReconciliationReport } from './reconciliation-report.js';

/** Options of `createPlatformGateway`. */
export interface PlatformGatewayOptions {
  /** The hosted actors, by ref. */
  readonly pools: ReadonlyMap<string, ActorPool>;
  /** The owner's token (dashboard, relay, `/platform/*`); generated when left out. At least 16 characters. */
  readonly ownerToken?: string;
  /** The tenant the edge and the relay send as `X-Tenant-Id`: the instances' owner. Default `owner`. */
  readonly ownerTenant?: string;
  /** Edge keys to start from, by ref (e.g. saved by a previous run); the others are generated. */
  readonly edgeKeys?: ReadonlyMap<string, string>;
  /** Told of every rotated edge key, e.g. to save it. */
  readonly onEdgeKeyRotated?: (ref: string, key: string) => void;
  /** How often reconciliation reads every replica's `/stats`, in ms; 0 reads only on demand. Default 5000. */
  readonly reconcileIntervalMs?: number;
  /** How often the gateway reads the status of a background run the edge started (to count it once it completes), in ms. Default 1000. */
  readonly runPollIntervalMs?: number;
  /** The largest `/mcp` body the edge reads to count `chat` calls. Default 4 MiB. */
  readonly maxMcpBodyBytes?: number;
}

/** The platform's fetch handler. */
export interface PlatformGateway {
  fetch(request: Request): Promise<Response>;
  /** Stops background work (reconciliation, following background runs). */
  close(): Promise<void>;
  /** The owner's token, for the supervisor to print (with the dashboard link `/?token=<token>`). */
  readonly ownerToken: string;
  /** The current edge key of an instance (undefined for an unknown ref). */
  edgeKey(ref: string): string | undefined;
  /** Reads every replica's `/stats` now and returns the reconciliation report. */
  reconcile(): Promise<ReconciliationReport>;
}

const DEFAULTS = {
  ownerTenant: 'owner',
  reconcileIntervalMs: 5_000,
  runPollIntervalMs: 1_000,
  maxMcpBodyBytes: 4 * 1024 * 1024,
} satisfies Partial<PlatformGatewayOptions>;

type GatewayEnv = { Variables: { requestId: string } };

/** Refuses a state-changing request from another site's page (the owner's cookie is `SameSite=Strict` too). */
function refuseForeignOrigin(request: Request): void {
  if (request.method !== 'GET' && request.method !== 'HEAD' && hasForeignOrigin(request, undefined, false))
    throw originNotAllowedError();
}

/** The first path segment below `prefix/` (decoded) and the rest of the path after it (with its leading `/`). */
function splitBelow(pathname: string, prefix: string): { ref: string; rest: string } {
  const [rawRef = '', ...rest] = pathname.slice(prefix.length + 1).split('/');
  let ref = rawRef;
  try {
    ref = decodeURIComponent(rawRef);
  } catch {
    throw new ActorError('not_found', { detail: 'The instance ref in the path is not valid percent-encoding' });
  }
  return { ref, rest: `/${rest.join('/')}` };
}

/**
 * Builds the local platform's HTTP front over its hosted actors: the external edge
 * (`/api/v1/k/<ref>/chat|status|health|mcp`, `status/<run id>` and its `/stream`, one key per instance in `X-API-Key`), the owner's
 * panel relay (`/relay/<ref>/panel/<slug>`), the owner's JSON (`/platform/actors`, the edge key
 * reveal and rotation, `/platform/reconciliation`) and the dashboard (`/`). Every error is a
 * problem+json answer with a code of the catalogue.
 * @param options the pools to route to, and the owner's token, tenant and intervals
 * @example
 * const gateway = createPlatformGateway({ pools });
 * serve({ fetch: gateway.fetch, port: 8700 });
 * console.log(`dashboard: http://127.0.0.1:8700/?token=${gateway.ownerToken}`);
 */
export function createPlatformGateway(options: PlatformGatewayOptions): PlatformGateway {
  const settings = { ...DEFAULTS, ...options };
  const ownerToken = options.ownerToken ?? generateOwnerToken();
  if (ownerToken.length < 16) throw new Error('The owner token must be at least 16 characters');
  const keys = new EdgeKeyring(options.pools.keys(), options.edgeKeys, options.onEdgeKeyRotated);
  const answered = new AnsweredInvokes();
  const reconciler = new Reconciler(options.pools, answered, settings.reconcileIntervalMs);
  const runs = new BackgroundRunWatch(settings.runPollIntervalMs);
  const edge = {
    pools: options.pools,
    keys,
    answered,
    reconciler,
    runs,
    ownerTenant: settings.ownerTenant,
    maxMcpBodyBytes: settings.maxMcpBodyBytes,
  };
  const relay = { pools: options.pools, ownerTenant: settings.ownerTenant };

  const loginPage = async (failed: boolean) => {
    const nonce = randomNonce();
    return new Response(await renderLoginPage(nonce, failed), { status: 401, headers: htmlPageHeaders(nonce) });
  };
  const loggedIn = (token: string) =>
    new Response(null, {
      status: 303,
      headers: { Location: GATEWAY_PATHS.dashboard, 'Set-Cookie': ownerCookie(token), 'Cache-Control': 'no-store' },
    });
  const noStore = (c: Context<GatewayEnv>) => c.header('Cache-Control', 'no-store');
  const origin = (c: Context<GatewayEnv>) =>
    `${new URL(c.req.url).protocol}//${c.req.header('host') ?? new URL(c.req.url).host}`;

  const app = new Hono<GatewayEnv>();
  app.use(async function gatewayRequestId(c, next) {
    c.set('requestId', requestIdFor(c.req.raw, undefined));
    await next();
    c.res.headers.set('X-Request-Id', c.get('requestId'));
  });
  app.onError((error, c) => problemResponse(error, c.get('requestId') ?? crypto.randomUUID()));
  app.notFound((c) =>
    problemResponse(
      new ActorError('not_found', { detail: `No platform route ${c.req.method} ${new URL(c.req.url).pathname}` }),
      c.get('requestId'),
    ),
  );

  app.get(GATEWAY_PATHS.dashboard, async function dashboard(c) {
    const token = c.req.query('token');
    if (token !== undefined) return constantTimeEqual(token, ownerToken) ? loggedIn(ownerToken) : loginPage(true);
    const given = ownerCredentialOf(c.req.raw);
    if (given === undefined) return loginPage(false);
    if (!constantTimeEqual(given, ownerToken)) return loginPage(true);
    const nonce = randomNonce();
    return c.body(await renderDashboardPage(nonce), 200, htmlPageHeaders(nonce));
  });
  app.get(GATEWAY_PATHS.registerActor, function registerActor(c) {
    // Every hosted folder is registered when the platform starts; the owner reviews them on the dashboard.
    return c.redirect(GATEWAY_PATHS.dashboard, 303);
  });
  app.post(GATEWAY_PATHS.login, async function login(c) {
    refuseForeignOrigin(c.req.raw);
    const form = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
    const token = typeof form.token === 'string' ? form.token.trim() : '';
    return constantTimeEqual(token, ownerToken) ? loggedIn(ownerToken) : loginPage(true);
  });
  app.get(GATEWAY_PATHS.actors, function listActors(c) {
    requireOwner(c.req.raw, ownerToken);
    noStore(c);
    return c.json(platformActors(options.pools, keys, origin(c)));
  });
  app.on(['GET', 'POST'], `${GATEWAY_PATHS.actors}/:ref/edge-key`, function edgeKey(c) {
    requireOwner(c.req.raw, ownerToken);
    refuseForeignOrigin(c.req.raw);
    const pool = poolOf(options.pools, c.req.param('ref'));
    if (!hasEdge(pool))
      throw new ActorError('external_api_disabled', { detail: `${pool.ref} has no external edge, so no edge key` });
    const key = c.req.method === 'POST' ? keys.rotate(pool.ref) : keys.keyOf(pool.ref);
    noStore(c);
    return c.json({ ref: pool.ref, edge_key: key, rotated_at: keys.rotatedAt(pool.ref) ?? null });
  });
  app.get(GATEWAY_PATHS.reconciliation, async function reconciliation(c) {
    requireOwner(c.req.raw, ownerToken);
    noStore(c);
    return c.json(c.req.query('refresh') === 'true' ? await reconciler.read() : reconciler.report());
  });
  app.all(`${GATEWAY_PATHS.edge}/*`, function externalEdge(c) {
    const { ref, rest } = splitBelow(new URL(c.req.url).pathname, GATEWAY_PATHS.edge);
    return answerEdge(edge, c.req.raw, ref, rest.slice(1), c.get('requestId'));
  });
  app.all(`${GATEWAY_PATHS.relay}/*`, function panelRelay(c) {
    requireOwner(c.req.raw, ownerToken);
    refuseForeignOrigin(c.req.raw);
    const { ref, rest } = splitBelow(new URL(c.req.url).pathname, GATEWAY_PATHS.relay);
    return answerRelay(relay, c.req.raw, ref, rest, c.get('requestId'));
  });

  reconciler.start();
  return {
    fetch: async (request) => app.fetch(request),
    close: async () => {
      await Promise.all([reconciler.close(), runs.close()]);
    },
    ownerToken,
    edgeKey: (ref) => keys.keyOf(ref),
    reconcile: () => reconciler.read(),
  };
}
