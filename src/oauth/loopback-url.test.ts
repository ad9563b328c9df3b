import { describe, expect, it } from 'vitest';
import { isLoopbackUrl } from './loopback-url.js';

describe('isLoopbackUrl', () => {
  it('is true for localhost, 127.0.0.0/8 and [::1] only', () => {
    expect(
      ['http://localhost', 'https://LOCALHOST:1/x', 'http://127.255.0.1', 'http://[::1]:2'].map(isLoopbackUrl),
    ).toEqual([true, true, true, true]);
    expect(
      ['http://0.0.0.0', 'http://[::]', 'http://example.com', 'http://127.0.0.1.nip.io', 'not a url', ''].map(
        isLoopbackUrl,
      ),
    ).toEqual([false, false, false, false, false, false]);
  });
});
