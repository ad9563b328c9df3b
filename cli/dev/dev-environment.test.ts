import { describe, expect, it } from 'vitest';
import { devEnvironment, shownEnvironment } from './dev-environment.js';

describe('the environment of actorkit dev', () => {
  it('turns the playground on and shortens the shutdown grace unless set, and points PORT and HOST at the actor on loopback', () => {
    expect(devEnvironment({ PATH: '/bin' }, 4000)).toEqual({
      PATH: '/bin',
      PLAYGROUND_ENABLED: 'true',
      SHUTDOWN_GRACE_MS: '2000',
      PORT: '4000',
      HOST: '127.0.0.1',
    });
    expect(
      devEnvironment({ PLAYGROUND_ENABLED: 'false', SHUTDOWN_GRACE_MS: '500', PORT: '9', HOST: '0.0.0.0' }, 4000),
    ).toMatchObject({
      PLAYGROUND_ENABLED: 'false',
      SHUTDOWN_GRACE_MS: '500',
      PORT: '4000',
      HOST: '127.0.0.1',
    });
  });

  it('shows the variables that are set, in the README order, secrets masked, PORT as the one to connect to', () => {
    const shown = shownEnvironment(
      {
        API_KEY_ENABLED: 'true',
        API_KEY: 'k1,k2',
        LLM_API_KEY: 'sk-live',
        DATABASE_URL: 'postgres://u:p@db/x',
        LLM_MODEL: 'm',
        PORT: '4000',
        PATH: '/bin',
        HOSTNAME: 'box',
      },
      8080,
    );
    expect(shown).toEqual({
      PORT: '8080',
      API_KEY_ENABLED: 'true',
      API_KEY: '********',
      DATABASE_URL: '********',
      LLM_API_KEY: '********',
      LLM_MODEL: 'm',
    });
    expect(shownEnvironment({}, 8080)).toEqual({ PORT: '8080', DATA_DIR: '.actorkit/data' });
    expect(shownEnvironment({ HOST: '127.0.0.1' }, 8080)).not.toHaveProperty('HOST');
  });
});
