import type { ActorEnvironment } from '../environment/runtime-config.js';
import type { OAuthProviderDeclaration } from '../config/platform-config.js';
import { parseOnOff } from '../environment/parse-on-off.js';
import { StartupRefusal } from '../environment/startup-refusal.js';
import type { OAuthProviderConfig } from './oauth-provider.js';

const IPV4_LOOPBACK = /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;

/**
 * Whether `value` is a URL whose host is this machine's loopback: `localhost`, an address of
 * 127.0.0.0/8 or `[::1]`. Anything else, and text that is not a URL, is not.
 * @param value the URL
 */
function isLoopbackUrl(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const host = new URL(value).hostname;
  return host === 'localhost' || host === '[::1]' || IPV4_LOOPBACK.test(host);
}

/** The environment variable prefix of a provider, e.g. `OAUTH_GOOGLE_WORKSPACE_` for `google-workspace`. */
export function providerEnvPrefix(provider: string): string {
  return `OAUTH_${provider.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_`;
}

/** Reads an `OAUTH_<P>_ALLOW_INSECURE` value: on only for endpoints that are all on loopback, else a `StartupRefusal`. */
function allowsInsecureLoopback(
  raw: string | undefined,
  variable: string,
  endpoints: readonly (string | undefined)[],
): boolean {
  if (raw === undefined) return false;
  const on = parseOnOff(raw);
  if (on === undefined)
    throw new StartupRefusal(variable, `${variable} must be true or false, got ${JSON.stringify(raw)}`);
  if (!on) return false;
  const remote = endpoints.find((endpoint) => endpoint !== undefined && !isLoopbackUrl(endpoint));
  if (remote !== undefined)
    throw new StartupRefusal(
      variable,
      `${variable}=true is for loopback providers only (localhost, 127.0.0.0/8, [::1]), not ${remote}: unset it and use https`,
    );
  return true;
}

/**
 * Refuses the start, in one line, for an endpoint that is no `https:` URL: text that is not a
 * URL, or `http:` without `OAUTH_<P>_ALLOW_INSECURE=true` (which only a loopback provider may set).
 */
function refuseUnsafeEndpoints(
  prefix: string,
  allowInsecureRequests: boolean,
  endpoints: Readonly<Record<string, string | undefined>>,
): void {
  for (const [name, endpoint] of Object.entries(endpoints)) {
    if (endpoint === undefined) continue;
    const variable = `${prefix}${name}`;
    const protocol = URL.canParse(endpoint) ? new URL(endpoint).protocol : undefined;
    if (protocol === 'https:' || (protocol === 'http:' && allowInsecureRequests)) continue;
    throw new StartupRefusal(
      variable,
      protocol === 'http:'
        ? `${variable} is ${endpoint}: use https, or for a provider on loopback set ${prefix}ALLOW_INSECURE=true`
        : `${variable} must be an https URL, got ${JSON.stringify(endpoint)}`,
    );
  }
}

/**
 * Builds the provider configurations of the providers an actor declares (`definition.oauth`)
 * from the environment: `OAUTH_<P>_ISSUER`, or `OAUTH_<P>_AUTHORIZATION_ENDPOINT` with
 * `OAUTH_<P>_TOKEN_ENDPOINT`; `OAUTH_<P>_CLIENT_ID`, `OAUTH_<P>_CLIENT_SECRET` (else the settings
 * `oauth_<p>_client_id` / `_client_secret` are read per request); `OAUTH_<P>_SCOPES` (space or
 * comma separated) over the declared scopes; `OAUTH_<P>_ALLOW_INSECURE=true` allows plain-http
 * endpoints, for a provider on loopback only (`localhost`, 127.0.0.0/8, `[::1]`), e.g. a local
 * mock in tests. A declared provider without endpoints, or with the switch on for another host,
 * refuses to start (`StartupRefusal`).
 * @param env the environment
 * @param declarations the providers the actor declares
 */
export function oauthProvidersFromEnv(
  env: ActorEnvironment,
  declarations: readonly OAuthProviderDeclaration[],
): OAuthProviderConfig[] {
  return declarations.map((declaration) => {
    const prefix = providerEnvPrefix(declaration.provider);
    const read = (name: string) => env[`${prefix}${name}`]?.trim() || undefined;
    const issuer = read('ISSUER');
    const authorizationEndpoint = read('AUTHORIZATION_ENDPOINT');
    const tokenEndpoint = read('TOKEN_ENDPOINT');
    if (issuer === undefined && (authorizationEndpoint === undefined || tokenEndpoint === undefined)) {
      throw new StartupRefusal(
        `${prefix}ISSUER`,
        `OAuth provider ${declaration.provider} is declared but not configured: set ${prefix}ISSUER, or ${prefix}AUTHORIZATION_ENDPOINT and ${prefix}TOKEN_ENDPOINT`,
      );
    }
    const allowInsecureRequests = allowsInsecureLoopback(read('ALLOW_INSECURE'), `${prefix}ALLOW_INSECURE`, [
      issuer,
      authorizationEndpoint,
      tokenEndpoint,
    ]);
    refuseUnsafeEndpoints(prefix, allowInsecureRequests, {
      ISSUER: issuer,
      AUTHORIZATION_ENDPOINT: authorizationEndpoint,
      TOKEN_ENDPOINT: tokenEndpoint,
    });
    const scopes =
      read('SCOPES')
        ?.split(/[\s,]+/)
        .filter(Boolean) ?? declaration.scopes;
    return {
      provider: declaration.provider,
      ...(declaration.title === undefined ? {} : { title: declaration.title }),
      ...(issuer === undefined ? {} : { issuer }),
      ...(authorizationEndpoint === undefined ? {} : { authorizationEndpoint }),
      ...(tokenEndpoint === undefined ? {} : { tokenEndpoint }),
      ...(read('CLIENT_ID') === undefined ? {} : { clientId: read('CLIENT_ID') }),
      ...(read('CLIENT_SECRET') === undefined ? {} : { clientSecret: read('CLIENT_SECRET') }),
      ...(scopes === undefined ? {} : { scopes }),
      ...(allowInsecureRequests ? { allowInsecureRequests } : {}),
    };
  });
}
