import { describe, expect, it } from 'vitest';
import { invalidHostError, isAcceptableHost, splitHost } from './host-header.js';

describe('isAcceptableHost', () => {
  it('accepts a plain host with an optional port, and no Host at all', () => {
    for (const host of [
      null,
      '',
      'localhost',
      'LOCALHOST:8080',
      '127.0.0.1',
      '[::1]:8080',
      '[2001:db8::1]',
      'xn--bcher-kva.example',
      'my_actor.svc.cluster.local:80',
    ]) {
      expect(isAcceptableHost(host), String(host)).toBe(true);
    }
  });

  it('refuses anything that could reach the path of a URL built from it', () => {
    for (const host of [
      'a/stats',
      'a?b',
      'a#b',
      'user@host',
      'a b',
      ' localhost',
      'a\\b',
      'a%2fb',
      'a\u00c3/stats?',
      'bücher.example',
      'host:port',
      'host:123456',
      '[::1',
      'a\tb',
      'a,b',
      '127.0.0.1:99999',
      'localhost:65536',
      '[::1]:99999',
      '1.2.3.256',
      '[:::]',
    ]) {
      expect(isAcceptableHost(host), JSON.stringify(host)).toBe(false);
    }
  });

  it('judges each value on its own, whatever it accepted just before (it remembers the last accepted one)', () => {
    for (const [accepted, refused] of [
      ['localhost:6553', 'localhost:65536'],
      ['1.2.3.25', '1.2.3.256'],
      ['[::1]:8080', '[::1]:99999'],
    ] as const) {
      expect(isAcceptableHost(accepted), accepted).toBe(true);
      expect(isAcceptableHost(refused), refused).toBe(false);
      expect(isAcceptableHost(accepted), accepted).toBe(true);
      expect(isAcceptableHost(`${accepted}/stats`), `${accepted}/stats`).toBe(false);
    }
  });

  it('accepts every port up to 65535', () => {
    for (const host of ['localhost:0', 'localhost:65535', '[::1]:65535', '127.0.0.1:080'])
      expect(isAcceptableHost(host), host).toBe(true);
  });

  it('splits a plain Host into its lower-cased name and its port', () => {
    expect(splitHost('Actor.Example.:8080')).toEqual({ name: 'actor.example', port: '8080' });
    expect(splitHost('[::1]:80')).toEqual({ name: '[::1]', port: '80' });
    expect(splitHost('[::1]')).toEqual({ name: '[::1]', port: '' });
    expect(splitHost('10.0.0.5')).toEqual({ name: '10.0.0.5', port: '' });
  });

  it('names its problem invalid_host, 400', () => {
    expect(invalidHostError()).toMatchObject({ status: 400, code: 'invalid_host' });
  });
});
