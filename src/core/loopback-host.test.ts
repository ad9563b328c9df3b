import { describe, expect, it } from 'vitest';
import { isLoopbackHostname } from './loopback-host.js';

describe('isLoopbackHostname', () => {
  it('knows localhost, *.localhost, 127.0.0.0/8 and ::1', () => {
    for (const name of ['localhost', 'actor.localhost', '127.0.0.1', '127.255.10.1', '::1', '[::1]'])
      expect(isLoopbackHostname(name), name).toBe(true);
  });

  it('does not take other names, wildcard addresses or look-alikes for loopback', () => {
    for (const name of [
      '0.0.0.0',
      '::',
      '[::]',
      '10.0.0.1',
      '127.0.0.256',
      '127.0.0',
      'localhost.example',
      'notlocalhost',
      '127.0.0.1.nip.io',
      '2130706433',
    ])
      expect(isLoopbackHostname(name), name).toBe(false);
  });
});
