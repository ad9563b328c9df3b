import { describe, expect, it } from 'vitest';
import { checkOAuthProviders, clientCredentials } from './oauth-provider.js';
import { StartupRefusal } from '../environment/startup-refusal.js';
import { oauthProvidersFromEnv, providerEnvPrefix } from './oauth-providers-from-env.js';

const issuer = 'https://id.example';

describe('checkOAuthProviders', () => {
  it('refuses bad ids, duplicates, missing endpoints and plain http', () => {
    expect(() => checkOAuthProviders([{ provider: 'Git Hub', issuer }])).toThrow(/must be 1–63/);
    expect(() =>
      checkOAuthProviders([
        { provider: 'a', issuer },
        { provider: 'a', issuer },
      ]),
    ).toThrow(/twice/);
    expect(() => checkOAuthProviders([{ provider: 'a', authorizationEndpoint: `${issuer}/authorize` }])).toThrow(
      /needs an issuer/,
    );
    expect(() => checkOAuthProviders([{ provider: 'a', issuer: 'http://id.example' }])).toThrow(/must be https/);
    expect(() => checkOAuthProviders([{ provider: 'a', issuer: 'not a url' }])).toThrow(/not a URL/);
    expect(
      checkOAuthProviders([{ provider: 'a', issuer: 'http://127.0.0.1:1', allowInsecureRequests: true }]).has('a'),
    ).toBe(true);
  });
});

describe('clientCredentials', () => {
  it('prefers the configuration, then the settings, and answers 503 without a client id or a needed secret', () => {
    expect(
      clientCredentials({ provider: 'a', issuer, clientId: 'cfg' }, { oauth_a_client_id: 'set' }).client.client_id,
    ).toBe('cfg');
    expect(
      clientCredentials({ provider: 'google-workspace', issuer }, { oauth_google_workspace_client_id: 'set' }).client
        .client_id,
    ).toBe('set');
    expect(() => clientCredentials({ provider: 'a', issuer }, { oauth_a_client_id: ' ' })).toThrow(
      expect.objectContaining({ status: 503, code: 'oauth_provider_unconfigured' }),
    );
    expect(() =>
      clientCredentials({ provider: 'a', issuer, clientId: 'x', clientAuthentication: 'client_secret_post' }, {}),
    ).toThrow(/client secret/);
  });
});

describe('oauthProvidersFromEnv', () => {
  it('reads each declared provider from OAUTH_<P>_*', () => {
    expect(providerEnvPrefix('google-workspace')).toBe('OAUTH_GOOGLE_WORKSPACE_');
    const env = {
      OAUTH_GITHUB_AUTHORIZATION_ENDPOINT: 'https://github.com/login/oauth/authorize',
      OAUTH_GITHUB_TOKEN_ENDPOINT: 'https://github.com/login/oauth/access_token',
      OAUTH_GITHUB_CLIENT_ID: 'gh',
      OAUTH_GITHUB_CLIENT_SECRET: 's',
      OAUTH_GOOGLE_ISSUER: 'https://accounts.google.com',
      OAUTH_GOOGLE_SCOPES: 'openid, email',
    };
    expect(
      oauthProvidersFromEnv(env, [
        { provider: 'github', title: 'GitHub', scopes: ['repo'] },
        { provider: 'google', scopes: ['openid'] },
      ]),
    ).toEqual([
      {
        provider: 'github',
        title: 'GitHub',
        authorizationEndpoint: env.OAUTH_GITHUB_AUTHORIZATION_ENDPOINT,
        tokenEndpoint: env.OAUTH_GITHUB_TOKEN_ENDPOINT,
        clientId: 'gh',
        clientSecret: 's',
        scopes: ['repo'],
      },
      { provider: 'google', issuer: 'https://accounts.google.com', scopes: ['openid', 'email'] },
    ]);
  });

  it('refuses a declared provider without endpoints', () => {
    expect(() => oauthProvidersFromEnv({ OAUTH_GITHUB_TOKEN_ENDPOINT: 'https://x' }, [{ provider: 'github' }])).toThrow(
      StartupRefusal,
    );
    expect(() => oauthProvidersFromEnv({ OAUTH_GITHUB_TOKEN_ENDPOINT: 'https://x' }, [{ provider: 'github' }])).toThrow(
      /OAUTH_GITHUB_ISSUER/,
    );
  });

  it('takes localhost, 127.0.0.0/8 and [::1] as loopback, and no other host or text (once loopback-url.test.ts)', () => {
    const allowed = (endpoint: string) => {
      try {
        return oauthProvidersFromEnv({ OAUTH_MOCK_ID_ISSUER: endpoint, OAUTH_MOCK_ID_ALLOW_INSECURE: 'true' }, [
          { provider: 'mock-id' },
        ])[0]?.allowInsecureRequests;
      } catch (error) {
        if ((error as StartupRefusal).variable === 'OAUTH_MOCK_ID_ALLOW_INSECURE') return false;
        throw error;
      }
    };
    expect(['http://localhost', 'https://LOCALHOST:1/x', 'http://127.255.0.1', 'http://[::1]:2'].map(allowed)).toEqual([
      true,
      true,
      true,
      true,
    ]);
    expect(
      ['http://0.0.0.0', 'http://[::]', 'http://example.com', 'http://127.0.0.1.nip.io', 'not a url'].map(allowed),
    ).toEqual([false, false, false, false, false]);
  });

  it('allows plain http with OAUTH_<P>_ALLOW_INSECURE=true for loopback providers only', () => {
    const mock = (env: Record<string, string>) => oauthProvidersFromEnv(env, [{ provider: 'mock-id' }])[0];
    for (const host of [
      'http://localhost:8080',
      'http://127.0.0.1:1',
      'http://127.8.9.10',
      'http://[::1]:9000/realm',
    ]) {
      expect(mock({ OAUTH_MOCK_ID_ISSUER: host, OAUTH_MOCK_ID_ALLOW_INSECURE: 'true' }), host).toMatchObject({
        issuer: host,
        allowInsecureRequests: true,
      });
    }
    expect(mock({ OAUTH_MOCK_ID_ISSUER: 'https://id.example.com' })).not.toHaveProperty('allowInsecureRequests');
    const explicit = {
      OAUTH_MOCK_ID_AUTHORIZATION_ENDPOINT: 'http://localhost:1/authorize',
      OAUTH_MOCK_ID_TOKEN_ENDPOINT: 'http://127.0.0.1:1/token',
      OAUTH_MOCK_ID_ALLOW_INSECURE: 'on',
    };
    expect(mock(explicit)).toMatchObject({ allowInsecureRequests: true });

    const refusals: [Record<string, string>, RegExp][] = [
      [
        { OAUTH_MOCK_ID_ISSUER: 'http://id.example.com', OAUTH_MOCK_ID_ALLOW_INSECURE: 'true' },
        /^OAUTH_MOCK_ID_ALLOW_INSECURE=true is for loopback providers only .* not http:\/\/id\.example\.com: unset it and use https$/,
      ],
      [
        { OAUTH_MOCK_ID_ISSUER: 'http://localhost.evil.example', OAUTH_MOCK_ID_ALLOW_INSECURE: 'true' },
        /not http:\/\/localhost\.evil\.example/,
      ],
      [{ OAUTH_MOCK_ID_ISSUER: 'http://128.0.0.1', OAUTH_MOCK_ID_ALLOW_INSECURE: '1' }, /not http:\/\/128\.0\.0\.1/],
      [{ ...explicit, OAUTH_MOCK_ID_TOKEN_ENDPOINT: 'http://10.0.0.5/token' }, /not http:\/\/10\.0\.0\.5\/token/],
      [
        { OAUTH_MOCK_ID_ISSUER: 'http://127.0.0.1:1' },
        /^OAUTH_MOCK_ID_ISSUER is http:\/\/127\.0\.0\.1:1: use https, or for a provider on loopback set OAUTH_MOCK_ID_ALLOW_INSECURE=true$/,
      ],
      [
        { OAUTH_MOCK_ID_ISSUER: 'http://id.example.com', OAUTH_MOCK_ID_ALLOW_INSECURE: 'false' },
        /^OAUTH_MOCK_ID_ISSUER is http:\/\/id\.example\.com: use https/,
      ],
      [
        { OAUTH_MOCK_ID_ISSUER: 'id.example.com' },
        /^OAUTH_MOCK_ID_ISSUER must be an https URL, got "id\.example\.com"$/,
      ],
      [
        { ...explicit, OAUTH_MOCK_ID_ALLOW_INSECURE: 'off' },
        /^OAUTH_MOCK_ID_AUTHORIZATION_ENDPOINT is http:\/\/localhost:1\/authorize: use https/,
      ],
      [
        { OAUTH_MOCK_ID_ISSUER: 'http://127.0.0.1:1', OAUTH_MOCK_ID_ALLOW_INSECURE: 'maybe' },
        /^OAUTH_MOCK_ID_ALLOW_INSECURE must be true or false, got "maybe"$/,
      ],
    ];
    for (const [env, message] of refusals) {
      expect(() => mock(env), JSON.stringify(env)).toThrow(
        expect.objectContaining({
          name: 'StartupRefusal',
          variable: expect.stringMatching(/^OAUTH_MOCK_ID_(ALLOW_INSECURE|ISSUER|AUTHORIZATION_ENDPOINT)$/),
          message: expect.stringMatching(message),
        }),
      );
    }
  });
});
