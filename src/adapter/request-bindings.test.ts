import { describe, expect, it } from 'vitest';
import { bunRequestBindings } from './bun/bun-request-bindings.js';
import { denoRequestBindings } from './deno/deno-request-bindings.js';
import { NodeRequestBindings } from './node/node-request-bindings.js';

describe('what each adapter tells the actor about a request', () => {
  const request = new Request('http://x/');

  it('reads the client address of Node, Bun and Deno, and nothing else', () => {
    expect(new NodeRequestBindings({ rawHeaders: [], socket: { remoteAddress: '::1' } as never }).clientAddress()).toBe(
      '::1',
    );
    const bun = {
      requestIP(this: unknown, r: Request) {
        return r === request && this === bun ? { address: '1.2.3.4' } : null;
      },
    };
    expect(bunRequestBindings(bun, request).clientAddress!()).toBe('1.2.3.4');
    expect(denoRequestBindings({ remoteAddr: { hostname: '5.6.7.8' } }).clientAddress!()).toBe('5.6.7.8');
    expect(denoRequestBindings(undefined).clientAddress!()).toBeUndefined();
    expect(denoRequestBindings({}).clientAddress!()).toBeUndefined();
    expect(bunRequestBindings({ requestIP: () => null }, request).clientAddress!()).toBeUndefined();
  });

  it('reads a Node header from the raw list, by its lower-case name, whatever case was sent', () => {
    const node = new NodeRequestBindings({
      rawHeaders: ['Host', 'x', 'X-Request-ID', 'trace-7', 'x-request-idx', 'no'],
      socket: {} as never,
    });
    expect(node.requestHeader('x-request-id')).toBe('trace-7');
    expect(node.requestHeader('x-tenant-id')).toBeNull();
  });
});
