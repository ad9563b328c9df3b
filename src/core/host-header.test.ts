import { describe, expect, it } from 'vitest';
import { invalidHostError, isAcceptableHost } from './host-header.js';

describe('isAcceptableHost', () => {
  it('accepts a plain host with an optional port, and no Host at all', () => {
    for (const host of [null, '', 'localhost', 'LOCALHOST:8080', '127.0.0.1', '[::1]:8080', '[2001:db8::1]', 'xn--bcher-kva.example', 'my_actor.svc.cluster.local:80']) {
      expect(isAcceptableHost(host), String(host)).toBe(true);
    }
  });

  it('refuses anything that could reach the path of a URL built from it', () => {
    for (const host of ['a/stats', 'a?b', 'a#b', 'user@host', 'a b', ' localhost', 'a\\b', 'a%2fb', 'a\u00c3/stats?', 'bücher.example', 'host:port', 'host:123456', '[::1', 'a\tb', 'a,b']) {
      expect(isAcceptableHost(host), JSON.stringify(host)).toBe(false);
    }
  });

  it('names its problem invalid_host, 400', () => {
    expect(invalidHostError()).toMatchObject({ status: 400, code: 'invalid_host' });
  });
});
