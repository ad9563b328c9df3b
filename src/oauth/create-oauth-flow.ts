import * as oauth from 'oauth4webapi';
import type { ActorContext } from '../context/actor-context.js';
import { DEFAULT_TENANT, parseTenantId } from '../core/tenant-id.js';
import { ActorError } from '../core/actor-error.js';
import { unknownOAuthProvider, type OAuthTokenSource } from '../core/oauth-token-source.js';
import type { OAuthFlow } from './oauth-flow.js';
import type { StoredOAuthToken } from '../store/store.js';
import {
  AuthorizationServers,
  checkOAuthProviders,
  clientCredentials,
  providerRequestOptions,
  type OAuthProviderConfig,
} from './oauth-provider.js';
import type { OAuthStateRecord, OAuthStateStore } from './oauth-state-store.js';
import { PendingOAuthFlows } from './pending-oauth-flows.js';
import { parseReturnTo } from './return-to.js';
import { StoreOAuthStateStore } from './store-oauth-state-store.js';
import { html } from 'hono/html';
import { framedPageHeaders, STATIC_PAGE_POLICY } from '../core/html-page.js';

/**
 * The small page shown after a successful callback without `return_to`. It carries no script
 * and no token; its CSP forbids everything.
 * @param providerTitle the provider's display name
 */
async function oauthSuccessPage(providerTitle: string): Promise<Response> {
  const page = await html`<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Connected</title></head>
<body><main><h1>Connected to ${providerTitle}</h1><p>You can close this window.</p></main></body>
</html>
`;
  return new Response(page.toString(), {
    status: 200,
    headers: {
      'Content-Type': 'text/html; charset=utf-8',
      ...framedPageHeaders(STATIC_PAGE_POLICY),
      'Cache-Control': 'no-store',
      'Referrer-Policy': 'no-referrer',
      'X-Content-Type-Options': 'nosniff',
    },
  });
}

/** Options of `createOAuthFlow`. */
export interface CreateOAuthFlowOptions {
  readonly providers: readonly OAuthProviderConfig[];
  /**
   * The absolute callback URL registered at the providers (`https://actor.example/oauth/callback`).
   * Default: derived from the authorize request's own URL, which suits local runs only.
   */
  readonly redirectUri?: string;
  /** How long a started flow may take, in ms; default 10 minutes. */
  readonly stateTtlMs?: number;
  /**
   * Where pending states live. Default: the actor's own store (`StoreOAuthStateStore`), shared by
   * every replica on its database; `new MemoryOAuthStateStore()` keeps them in this process only.
   */
  readonly stateStore?: OAuthStateStore;
  /** Time-out of each request to a provider, in ms; default 10 000. */
  readonly providerTimeoutMs?: number;
  /** An access token this close to expiry is refreshed first, in ms; default 60 000. */
  readonly refreshMarginMs?: number;
  /**
   * Most flows one tenant may have started and not finished in this process (default 20); past
   * it `/oauth/authorize` answers 429 `too_many_pending_oauth_flows` until one finishes or expires.
   */
  readonly maxPendingStatesPerTenant?: number;
  /** Most flows all tenants together may have pending in this process (default 10 000); past it, 429 as above. */
  readonly maxPendingStates?: number;
  /** The clock, in epoch ms; for tests. */
  readonly now?: () => number;
}

/** What the flow needs of the actor: the store for tokens, the settings for client credentials, the logger. */
export type OAuthFlowContext = Pick<ActorContext, 'store' | 'settings' | 'logger'>;

/** The OAuth flow of an actor: the two routes, plus access tokens for the actor's tools. */
export interface ActorOAuthFlow extends OAuthFlow, OAuthTokenSource {
  /** The configured provider ids. */
  readonly providers: readonly string[];
  /** Gives the flow the actor's store (for tokens and, by default, states) and settings; `createActorApp` does it. */
  bind(ctx: OAuthFlowContext): void;
  /**
   * A valid access token of `tenantId` at `provider`, refreshed first when it expires within the
   * margin. Throws `ActorError` 409 `oauth_not_connected` / `oauth_reauthorization_required`,
   * 502 `oauth_refresh_failed`, 503 `store_unavailable`.
   */
  getAccessToken(tenantId: string, provider: string): Promise<string>;
}

const DEFAULTS = {
  stateTtlMs: 10 * 60_000,
  providerTimeoutMs: 10_000,
  refreshMarginMs: 60_000,
  maxPendingStatesPerTenant: 20,
  maxPendingStates: 10_000,
} as const;
const OAUTH_ERROR_CODE = /^[\w.-]{1,64}$/;

const redirect = (location: string) =>
  new Response(null, {
    status: 302,
    headers: { Location: location, 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' },
  });
const safeCode = (value: unknown) => (typeof value === 'string' && OAUTH_ERROR_CODE.test(value) ? value : 'unknown');
const invalidState = () =>
  new ActorError('invalid_state', {
    detail: 'The state is unknown, already used or expired; start again at /oauth/authorize',
  });
const statesUnavailable = (cause: unknown) =>
  new ActorError('store_unavailable', {
    detail: 'OAuth states are unavailable: the database is unreachable; start again at /oauth/authorize shortly',
    cause,
  });

/** Why a provider request failed, in words safe for logs and problems (never a token). */
function failureReason(error: unknown): string {
  if (error instanceof oauth.ResponseBodyError) return safeCode(error.error);
  if (error instanceof Error && error.name === 'TimeoutError') return 'timeout';
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string') return safeCode(code);
  return error instanceof Error ? safeCode(error.name) : 'unknown';
}

function tenantOf(url: URL, request: Request): string {
  const fromHeader = request.headers.get('x-tenant-id') ?? undefined;
  const fromQuery = url.searchParams.get('tenant_id') ?? undefined;
  if (fromHeader !== undefined && fromQuery !== undefined && fromHeader !== fromQuery) {
    throw new ActorError('tenant_mismatch', {
      detail: 'tenant_id differs from the X-Tenant-Id header of this request',
    });
  }
  return parseTenantId(fromQuery ?? fromHeader ?? DEFAULT_TENANT, '/tenant_id', 'tenant_id is malformed');
}

function storedToken(
  tenantId: string,
  provider: string,
  tokens: oauth.TokenEndpointResponse,
  now: number,
  previous?: StoredOAuthToken,
): StoredOAuthToken {
  return {
    tenantId,
    provider,
    accessToken: tokens.access_token,
    refreshToken: tokens.refresh_token ?? previous?.refreshToken ?? null,
    tokenType: tokens.token_type,
    scope: tokens.scope ?? previous?.scope ?? null,
    expiresAt: typeof tokens.expires_in === 'number' ? new Date(now + tokens.expires_in * 1000).toISOString() : null,
  };
}

/**
 * The OAuth flow (DESIGN §3) on `oauth4webapi`: `GET /oauth/authorize?provider=&tenant_id=&return_to=`
 * answers 302 to the provider with a single-use, expiring `state` and PKCE S256;
 * `GET /oauth/callback` exchanges the code and stores the tokens per tenant and provider. Tokens
 * never appear in a response or a log. Pass it to `createActorApp({ oauth })`.
 * @param options the providers, the callback URL and the time limits
 * @example
 * const oauth = createOAuthFlow({ providers: oauthProvidersFromEnv(env, actor.oauth ?? []), redirectUri: env.OAUTH_REDIRECT_URI });
 * const app = createActorApp({ definition: actor, oauth });
 * const token = await oauth.getAccessToken('acme', 'github');
 */
export function createOAuthFlow(options: CreateOAuthFlowOptions): ActorOAuthFlow {
  const providers = checkOAuthProviders(options.providers);
  const settings = { ...DEFAULTS, ...options } satisfies CreateOAuthFlowOptions;
  for (const key of ['stateTtlMs', 'providerTimeoutMs', 'refreshMarginMs'] as const) {
    if (!Number.isSafeInteger(settings[key]) || settings[key] < 0)
      throw new Error(`${key} must be a non-negative integer, got ${settings[key]}`);
  }
  for (const key of ['maxPendingStatesPerTenant', 'maxPendingStates'] as const) {
    if (!Number.isSafeInteger(settings[key]) || settings[key] < 1)
      throw new Error(`${key} must be a positive integer, got ${settings[key]}`);
  }
  const pendingFlows = new PendingOAuthFlows(settings.maxPendingStatesPerTenant, settings.maxPendingStates);
  if (options.redirectUri !== undefined && !/^https?:\/\//.test(options.redirectUri))
    throw new Error(`redirectUri must be an absolute http(s) URL, got ${JSON.stringify(options.redirectUri)}`);
  const servers = new AuthorizationServers(settings.providerTimeoutMs);
  const now = options.now ?? Date.now;
  const refreshing = new Map<string, Promise<string>>();
  let bound: OAuthFlowContext | undefined;
  let stateStore: OAuthStateStore | undefined = options.stateStore;
  const stateStoreFor = (ctx: OAuthFlowContext): OAuthStateStore => {
    if (bound === undefined) flow.bind(ctx);
    return stateStore!;
  };

  const providerOf = (id: string | null): OAuthProviderConfig => {
    const provider = id === null ? undefined : providers.get(id);
    if (provider === undefined) {
      if (id !== null && id !== '') throw unknownOAuthProvider(id, [...providers.keys()]);
      throw new ActorError('unknown_provider', {
        detail: `The provider query parameter is missing; configured: ${[...providers.keys()].join(', ') || 'none'}`,
      });
    }
    return provider;
  };
  const requestOptions = (provider: OAuthProviderConfig) =>
    providerRequestOptions(provider, settings.providerTimeoutMs);

  async function refresh(
    ctx: OAuthFlowContext,
    provider: OAuthProviderConfig,
    token: StoredOAuthToken,
  ): Promise<string> {
    const log = { provider: provider.provider, tenant_id: token.tenantId };
    if (token.refreshToken === null) {
      throw new ActorError('oauth_reauthorization_required', {
        detail: `The ${provider.provider} token of tenant ${token.tenantId} expired and cannot be refreshed; authorize again`,
      });
    }
    const server = await servers.resolve(provider);
    const { client, authentication } = clientCredentials(provider, ctx.settings.values);
    let tokens: oauth.TokenEndpointResponse;
    try {
      const response = await oauth.refreshTokenGrantRequest(
        server,
        client,
        authentication,
        token.refreshToken,
        requestOptions(provider),
      );
      tokens = await oauth.processRefreshTokenResponse(server, client, response);
    } catch (error) {
      const reason = failureReason(error);
      ctx.logger.warn('oauth_token_refresh_failed', { ...log, reason });
      if (error instanceof oauth.ResponseBodyError && error.error === 'invalid_grant') {
        throw new ActorError('oauth_reauthorization_required', {
          detail: `The provider refused the refresh token of tenant ${token.tenantId}; authorize again`,
        });
      }
      throw new ActorError('oauth_refresh_failed', {
        detail: `Refreshing the ${provider.provider} token failed (${reason})`,
      });
    }
    const renewed = storedToken(token.tenantId, provider.provider, tokens, now(), token);
    try {
      await ctx.store.saveOAuthToken(renewed);
    } catch (error) {
      // The provider may have rotated the refresh token: the new access token is still good to use now.
      ctx.logger.error('oauth_token_save_failed', { ...log, error });
    }
    ctx.logger.info('oauth_token_refreshed', { ...log, expires_at: renewed.expiresAt });
    return renewed.accessToken;
  }

  const flow: ActorOAuthFlow = {
    providers: [...providers.keys()],

    bind(ctx) {
      bound = ctx;
      stateStore = options.stateStore ?? new StoreOAuthStateStore(ctx.store);
    },

    async authorize(request, ctx) {
      const states = stateStoreFor(ctx);
      const url = new URL(request.url);
      const provider = providerOf(url.searchParams.get('provider'));
      const tenantId = tenantOf(url, request);
      const returnTo = parseReturnTo(url.searchParams.get('return_to'));
      const { client } = clientCredentials(provider, ctx.settings.values);
      const server = await servers.resolve(provider);
      const state = oauth.generateRandomState();
      const codeVerifier = oauth.generateRandomCodeVerifier();
      const redirectUri = options.redirectUri ?? new URL('callback', url).href;
      const expiresAt = now() + settings.stateTtlMs;
      pendingFlows.admit(state, tenantId, expiresAt, now());
      try {
        await states.put(
          state,
          { provider: provider.provider, tenantId, returnTo, codeVerifier, redirectUri, expiresAt },
          now(),
        );
      } catch (error) {
        pendingFlows.release(state);
        throw statesUnavailable(error);
      }
      const target = new URL(server.authorization_endpoint!);
      for (const [name, value] of Object.entries(provider.authorizationParams ?? {}))
        target.searchParams.set(name, value);
      target.searchParams.set('response_type', 'code');
      target.searchParams.set('client_id', client.client_id);
      target.searchParams.set('redirect_uri', redirectUri);
      if (provider.scopes !== undefined && provider.scopes.length > 0)
        target.searchParams.set('scope', provider.scopes.join(' '));
      target.searchParams.set('state', state);
      target.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(codeVerifier));
      target.searchParams.set('code_challenge_method', 'S256');
      ctx.logger.info('oauth_authorize_started', { provider: provider.provider, tenant_id: tenantId });
      return redirect(target.href);
    },

    async callback(request, ctx) {
      const states = stateStoreFor(ctx);
      const url = new URL(request.url);
      const state = url.searchParams.get('state');
      let record: OAuthStateRecord | null = null;
      try {
        if (state !== null && state !== '') {
          record = await states.take(state);
          pendingFlows.release(state);
        }
      } catch (error) {
        throw statesUnavailable(error);
      }
      const provider = record === null ? undefined : providers.get(record.provider);
      if (state === null || record === null || provider === undefined || record.expiresAt <= now()) {
        ctx.logger.warn('oauth_state_rejected', { reason: record === null ? 'unknown_or_used' : 'expired' });
        throw invalidState();
      }
      const log = { provider: provider.provider, tenant_id: record.tenantId };
      const server = await servers.resolve(provider);
      const { client, authentication } = clientCredentials(provider, ctx.settings.values);
      let parameters: URLSearchParams;
      try {
        parameters = oauth.validateAuthResponse(server, client, url.searchParams, state);
      } catch (error) {
        if (error instanceof oauth.AuthorizationResponseError) {
          const code = safeCode(error.error);
          ctx.logger.warn('oauth_authorization_denied', { ...log, error: code });
          throw new ActorError('oauth_provider_error', { detail: `Provider ${provider.provider} answered ${code}` });
        }
        ctx.logger.warn('oauth_callback_invalid', { ...log, reason: failureReason(error) });
        throw new ActorError('invalid_callback', {
          detail: 'The callback parameters do not form a valid authorization response',
        });
      }
      // An authorization response always carries a code (RFC 6749 §4.1.2): an empty one is the
      // caller's mistake, refused before the provider is asked (which would make it a 502).
      if (!parameters.get('code')) {
        ctx.logger.warn('oauth_callback_invalid', { ...log, reason: 'empty_code' });
        throw new ActorError('invalid_callback', { detail: 'The callback has no code' });
      }
      let tokens: oauth.TokenEndpointResponse;
      try {
        const response = await oauth.authorizationCodeGrantRequest(
          server,
          client,
          authentication,
          parameters,
          record.redirectUri,
          record.codeVerifier,
          requestOptions(provider),
        );
        tokens = await oauth.processAuthorizationCodeResponse(server, client, response);
      } catch (error) {
        const reason = failureReason(error);
        ctx.logger.warn('oauth_token_exchange_failed', { ...log, reason });
        throw new ActorError('token_exchange_failed', {
          detail: `Exchanging the code with provider ${provider.provider} failed (${reason})`,
        });
      }
      const token = storedToken(record.tenantId, provider.provider, tokens, now());
      try {
        await ctx.store.saveOAuthToken(token);
      } catch (error) {
        throw new ActorError('store_unavailable', {
          detail: 'The tokens could not be saved: the database is unreachable; authorize again shortly',
          cause: error,
        });
      }
      ctx.logger.info('oauth_connected', {
        ...log,
        scope: token.scope,
        expires_at: token.expiresAt,
        refreshable: token.refreshToken !== null,
      });
      return record.returnTo === undefined
        ? oauthSuccessPage(provider.title ?? provider.provider)
        : redirect(record.returnTo);
    },

    async getAccessToken(tenantId, providerId) {
      const ctx = bound;
      if (ctx === undefined)
        throw new Error('The OAuth flow has no store yet: call oauth.bind(app.actor.context) after createActorApp');
      const provider = providerOf(providerId);
      let token: StoredOAuthToken | null;
      try {
        token = await ctx.store.loadOAuthToken(tenantId, provider.provider);
      } catch (error) {
        throw new ActorError('store_unavailable', {
          detail: 'OAuth tokens are unavailable: the database is unreachable; try again shortly',
          cause: error,
        });
      }
      if (token === null) {
        throw new ActorError('oauth_not_connected', {
          detail: `Tenant ${tenantId} has not connected ${provider.provider}; start at /oauth/authorize?provider=${provider.provider}&tenant_id=${tenantId}`,
        });
      }
      if (token.expiresAt === null || Date.parse(token.expiresAt) - settings.refreshMarginMs > now())
        return token.accessToken;
      const key = `${tenantId}\u0000${provider.provider}`;
      let pending = refreshing.get(key);
      if (pending === undefined) {
        pending = refresh(ctx, provider, token).finally(() => refreshing.delete(key));
        refreshing.set(key, pending);
      }
      return pending;
    },
  };
  return flow;
}
