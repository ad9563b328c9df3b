import { describe, expect, it } from 'vitest';
import { hostAllowList } from './host-allow-list.js';

describe('hostAllowList', () => {
  it('allows loopback on any port, a listed name on any port, a listed name with a port on that port only', () => {
    const allows = hostAllowList(['actor.example', '10.0.0.5:8080']);
    for (const host of [
      'localhost',
      '127.0.0.1:9',
      '[::1]:8080',
      'Actor.Example.',
      'actor.example:443',
      '10.0.0.5:8080',
      '10.0.0.5:08080',
    ]) {
      expect(allows(host), host).toBe(true);
    }
    for (const host of ['evil.example', 'actor.example.evil', '10.0.0.5', '10.0.0.5:8081', '127.0.0.256'])
      expect(allows(host), host).toBe(false);
  });

  it('judges each value on its own, whatever it allowed just before (it remembers the last allowed one)', () => {
    const allows = hostAllowList(['actor.example:8080']);
    for (const [allowed, refused] of [
      ['actor.example:8080', 'actor.example:8081'],
      ['localhost:3000', 'localhost.evil:3000'],
    ] as const) {
      expect(allows(allowed), allowed).toBe(true);
      expect(allows(refused), refused).toBe(false);
      expect(allows(refused), `${refused} again`).toBe(false);
      expect(allows(allowed), `${allowed} again`).toBe(true);
    }
  });
});
