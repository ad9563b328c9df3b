import { randomUUID } from 'node:crypto';
import { OAuth2Server } from 'oauth2-mock-server';
import type { OAuthProviderConfig } from '../../src/oauth/index.js';

/** oauth2-mock-server on a free loopback port, with the grant type of every token request it answered. */
export interface MockOAuthProvider {
  readonly server: OAuth2Server;
  /** The issuer URL, for `OAuthProviderConfig.issuer`. */
  readonly issuer: string;
  /** Grant types of the token requests, oldest first; tests empty it with `grants.length = 0`. */
  readonly grants: string[];
  /** A provider config for this server (client ids avoid `-`: oauth4webapi encodes it in Basic auth and the mock does not decode it). */
  config(overrides?: Partial<OAuthProviderConfig>): OAuthProviderConfig;
  stop(): Promise<void>;
}

/** Starts oauth2-mock-server on 127.0.0.1 with an RS256 key and a unique `jti` per token. */
export async function startMockOAuthProvider(): Promise<MockOAuthProvider> {
  const server = new OAuth2Server();
  await server.issuer.keys.generate('RS256');
  await server.start(0, '127.0.0.1');
  // A unique id per token: the mock would otherwise sign identical tokens within one second.
  server.service.on(
    'beforeTokenSigning',
    (token: { payload: Record<string, unknown> }) => (token.payload.jti = randomUUID()),
  );
  const grants: string[] = [];
  server.service.on('beforeResponse', (_response: unknown, req: { body: { grant_type: string } }) =>
    grants.push(req.body.grant_type),
  );
  const issuer = server.issuer.url!;
  return {
    server,
    issuer,
    grants,
    config: (overrides = {}) => ({
      provider: 'mock',
      title: 'Mock ID',
      clientId: 'actorclient',
      clientSecret: 'actor-secret',
      issuer,
      allowInsecureRequests: true,
      scopes: ['openid', 'profile'],
      ...overrides,
    }),
    stop: () => server.stop(),
  };
}

/** The `Location` of a redirect, or '' without one. */
export const location = (response: Response): string => response.headers.get('location') ?? '';
