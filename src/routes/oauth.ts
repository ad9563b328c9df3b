import { defineRoute } from '../route-kit/actor-route.js';
import { problem } from '../route-kit/openapi-parts.js';

const stringQuery = (name: string, required: boolean, minLength = 0) => ({
  name,
  in: 'query',
  required,
  schema: minLength === 0 ? { type: 'string' } : { type: 'string', minLength },
});

/** `GET /oauth/authorize`: starts an OAuth flow of the `OAuthFlow` (behind the API key, so only a key holder starts one). */
export const oauthAuthorizeRoute = defineRoute(
  {
    method: 'get',
    path: '/oauth/authorize',
    security: 'apiKey',
    contract: 'always',
    operation: {
      operationId: 'oauthAuthorize',
      summary: 'Start an OAuth flow',
      parameters: [stringQuery('provider', true), stringQuery('tenant_id', false), stringQuery('return_to', false)],
      responses: {
        302: { description: 'Redirect to the provider' },
        400: problem('A return_to that is not a relative path of this actor', ['invalid_return_to']),
        403: problem('tenant_id differs from X-Tenant-Id', ['tenant_mismatch']),
        404: problem('Unknown provider', ['unknown_provider']),
        422: problem('Malformed tenant_id', ['validation_failed']),
        429: problem('Too many pending OAuth flows', ['too_many_pending_oauth_flows']),
        502: problem('The provider cannot be reached', ['oauth_provider_unavailable']),
        503: problem('Provider not configured, or the database unreachable', [
          'oauth_provider_unconfigured',
          'store_unavailable',
        ]),
      },
    },
  },
  (ctx, { oauth }) =>
    function oauthAuthorize(c) {
      return oauth.authorize(c.req.raw, ctx);
    },
);

/**
 * `GET /oauth/callback`: the provider's redirect of the user's browser, which cannot carry the
 * key; it is open, protected instead by its single-use, expiring `state`, which only a key
 * holder can have started.
 */
export const oauthCallbackRoute = defineRoute(
  {
    method: 'get',
    path: '/oauth/callback',
    security: 'open',
    contract: 'always',
    operation: {
      operationId: 'oauthCallback',
      summary: 'OAuth callback',
      parameters: [stringQuery('code', true, 1), stringQuery('state', true, 1)],
      responses: {
        200: { description: 'Success page', content: { 'text/html': { schema: { type: 'string' } } } },
        302: { description: 'Back to return_to' },
        400: problem('Unknown, used or expired state; the provider refused; malformed parameters', [
          'invalid_state',
          'oauth_provider_error',
          'invalid_callback',
        ]),
        502: problem('Token exchange failed', ['token_exchange_failed']),
        503: problem('The database is unreachable', ['store_unavailable']),
      },
    },
  },
  (ctx, { oauth }) =>
    function oauthCallback(c) {
      return oauth.callback(c.req.raw, ctx);
    },
);
