import { describe, expect, it } from 'vitest';
import { createOAuthFlow } from './create-oauth-flow.js';

const providers = [{ provider: 'github', authorizationEndpoint: 'https://github.com/login/oauth/authorize', tokenEndpoint: 'https://github.com/login/oauth/access_token', clientId: 'gh' }];

describe('createOAuthFlow', () => {
  it('refuses bad options at setup', () => {
    expect(() => createOAuthFlow({ providers, redirectUri: '/oauth/callback' })).toThrow(/absolute/);
    expect(() => createOAuthFlow({ providers, stateTtlMs: -1 })).toThrow(/stateTtlMs/);
    expect(() => createOAuthFlow({ providers: [{ provider: 'x' }] })).toThrow(/needs an issuer/);
  });

  it('lists its providers and needs a store before handing out tokens', async () => {
    const flow = createOAuthFlow({ providers });
    expect(flow.providers).toEqual(['github']);
    await expect(flow.getAccessToken('acme', 'github')).rejects.toThrow(/bind\(app\.actor\.context\)/);
  });
});
