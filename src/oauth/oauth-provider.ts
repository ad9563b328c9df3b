import * as oauth from 'oauth4webapi';
import { ActorError } from '../core/actor-error.js';

/** How the actor authenticates to a provider's token endpoint. */
type OAuthClientAuthentication = 'client_secret_basic' | 'client_secret_post' | 'none';

/**
 * One OAuth provider the actor connects tenants to. Endpoints come from issuer discovery
 * (`issuer`) or are given (`authorizationEndpoint` + `tokenEndpoint`, which win). Client
 * credentials left out are read per request from the settings `oauth_<provider>_client_id` and
 * `oauth_<provider>_client_secret` (so they can be secret settings, fed by `OAUTH_<PROVIDER>_CLIENT_ID`…).
 */
export interface OAuthProviderConfig {
  /** The id used in `?provider=`: 1–63 of a-z, 0-9, `_` and `-`. */
  readonly provider: string;
  readonly title?: string;
  /** Issuer for discovery (OpenID Connect `/.well-known/openid-configuration`, or RFC 8414 with `discovery: 'oauth2'`). */
  readonly issuer?: string;
  readonly discovery?: 'oidc' | 'oauth2';
  readonly authorizationEndpoint?: string;
  readonly tokenEndpoint?: string;
  readonly clientId?: string;
  readonly clientSecret?: string;
  /** Default `client_secret_basic` with a secret, `none` (PKCE only) without. */
  readonly clientAuthentication?: OAuthClientAuthentication;
  readonly scopes?: readonly string[];
  /** Extra authorization request parameters (e.g. `{access_type: 'offline'}`); they cannot replace state, PKCE or the redirect URI. */
  readonly authorizationParams?: Readonly<Record<string, string>>;
  /** Allows plain-http provider URLs: for loopback tests only. */
  readonly allowInsecureRequests?: boolean;
}

/** The credentials of one request to a provider. */
export interface OAuthClientCredentials {
  readonly client: oauth.Client;
  readonly authentication: oauth.ClientAuth;
}

const PROVIDER_ID = /^[a-z0-9][a-z0-9_-]{0,62}$/;

/** The settings key prefix of a provider's credentials, e.g. `oauth_google_workspace_`. */
function providerSettingsPrefix(provider: string): string {
  return `oauth_${provider.replaceAll('-', '_')}_`;
}

function checkUrl(value: string | undefined, what: string, insecure: boolean): void {
  if (value === undefined) return;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`${what} is not a URL: ${JSON.stringify(value)}`);
  }
  if (url.protocol !== 'https:' && !(insecure && url.protocol === 'http:'))
    throw new Error(`${what} must be https (http only with allowInsecureRequests), got ${value}`);
}

/**
 * Checks provider configurations at setup: ids valid and unique, endpoints present and https.
 * @param providers the configured providers
 */
export function checkOAuthProviders(providers: readonly OAuthProviderConfig[]): Map<string, OAuthProviderConfig> {
  const byId = new Map<string, OAuthProviderConfig>();
  for (const provider of providers) {
    if (!PROVIDER_ID.test(provider.provider))
      throw new Error(`OAuth provider id ${JSON.stringify(provider.provider)} must be 1–63 of a-z, 0-9, _ and -`);
    if (byId.has(provider.provider)) throw new Error(`OAuth provider ${provider.provider} is configured twice`);
    const explicit = provider.authorizationEndpoint !== undefined && provider.tokenEndpoint !== undefined;
    if (!explicit && provider.issuer === undefined)
      throw new Error(
        `OAuth provider ${provider.provider} needs an issuer, or both authorizationEndpoint and tokenEndpoint`,
      );
    const insecure = provider.allowInsecureRequests === true;
    checkUrl(provider.issuer, `OAuth provider ${provider.provider} issuer`, insecure);
    checkUrl(provider.authorizationEndpoint, `OAuth provider ${provider.provider} authorizationEndpoint`, insecure);
    checkUrl(provider.tokenEndpoint, `OAuth provider ${provider.provider} tokenEndpoint`, insecure);
    byId.set(provider.provider, provider);
  }
  return byId;
}

/**
 * The client id and token-endpoint authentication of a provider: from its configuration, else
 * from the live settings. A provider without a client id answers 503 `oauth_provider_unconfigured`.
 * @param provider the provider
 * @param settings the actor's current settings values
 */
export function clientCredentials(
  provider: OAuthProviderConfig,
  settings: Readonly<Record<string, unknown>>,
): OAuthClientCredentials {
  const prefix = providerSettingsPrefix(provider.provider);
  const setting = (name: string) => {
    const value = settings[`${prefix}${name}`];
    return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
  };
  const clientId = provider.clientId ?? setting('client_id');
  if (clientId === undefined) {
    throw new ActorError('oauth_provider_unconfigured', {
      detail: `Provider ${provider.provider} has no client id: set the setting ${prefix}client_id`,
    });
  }
  const secret = provider.clientSecret ?? setting('client_secret');
  const method = provider.clientAuthentication ?? (secret === undefined ? 'none' : 'client_secret_basic');
  if (method !== 'none' && secret === undefined) {
    throw new ActorError('oauth_provider_unconfigured', {
      detail: `Provider ${provider.provider} has no client secret: set the setting ${prefix}client_secret`,
    });
  }
  const authentication =
    method === 'none'
      ? oauth.None()
      : method === 'client_secret_post'
        ? oauth.ClientSecretPost(secret!)
        : oauth.ClientSecretBasic(secret!);
  return { client: { client_id: clientId }, authentication };
}

/** Options passed to every oauth4webapi request for a provider: the time-out and, for loopback tests, plain http. */
export function providerRequestOptions(
  provider: OAuthProviderConfig,
  timeoutMs: number,
): { signal: () => AbortSignal; [oauth.allowInsecureRequests]?: boolean } {
  return {
    signal: () => AbortSignal.timeout(timeoutMs),
    ...(provider.allowInsecureRequests === true ? { [oauth.allowInsecureRequests]: true } : {}),
  };
}

/**
 * Resolves providers' authorization server metadata: given endpoints as they are, issuers by
 * discovery once (a failed discovery is retried on the next request). Failure: 502
 * `oauth_provider_unavailable`.
 */
export class AuthorizationServers {
  readonly #cache = new Map<string, Promise<oauth.AuthorizationServer>>();
  readonly #timeoutMs: number;

  constructor(timeoutMs: number) {
    this.#timeoutMs = timeoutMs;
  }

  /** The metadata of `provider`. */
  resolve(provider: OAuthProviderConfig): Promise<oauth.AuthorizationServer> {
    if (provider.authorizationEndpoint !== undefined && provider.tokenEndpoint !== undefined) {
      return Promise.resolve({
        issuer: provider.issuer ?? new URL(provider.authorizationEndpoint).origin,
        authorization_endpoint: provider.authorizationEndpoint,
        token_endpoint: provider.tokenEndpoint,
      });
    }
    let cached = this.#cache.get(provider.provider);
    if (cached === undefined) {
      cached = this.#discover(provider);
      this.#cache.set(provider.provider, cached);
      cached.catch(() => this.#cache.delete(provider.provider));
    }
    return cached;
  }

  async #discover(provider: OAuthProviderConfig): Promise<oauth.AuthorizationServer> {
    const issuer = new URL(provider.issuer!);
    try {
      const response = await oauth.discoveryRequest(issuer, {
        ...providerRequestOptions(provider, this.#timeoutMs),
        algorithm: provider.discovery ?? 'oidc',
      });
      const server = await oauth.processDiscoveryResponse(issuer, response);
      if (server.authorization_endpoint === undefined || server.token_endpoint === undefined)
        throw new Error('the metadata names no authorization or token endpoint');
      return server;
    } catch (error) {
      throw new ActorError('oauth_provider_unavailable', {
        detail: `The metadata of provider ${provider.provider} could not be loaded`,
        cause: error,
      });
    }
  }
}
