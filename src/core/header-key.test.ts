import { describe, expect, it } from 'vitest';
import { checkHeaderKey, constantTimeEqual } from './header-key.js';

describe('header key', () => {
  it('compares keys exactly', () => {
    expect(constantTimeEqual('abc', 'abc')).toBe(true);
    expect(constantTimeEqual('abd', 'abc')).toBe(false);
    expect(constantTimeEqual('ab', 'abc')).toBe(false);
    expect(constantTimeEqual('abcd', 'abc')).toBe(false);
    expect(constantTimeEqual('', 'abc')).toBe(false);
  });

  it('tells a missing key from a wrong one, and accepts any of several keys', () => {
    expect(checkHeaderKey(undefined, ['k1'])).toBe('missing');
    expect(checkHeaderKey('', ['k1'])).toBe('missing');
    expect(checkHeaderKey('k3', ['k1', 'k2'])).toBe('invalid');
    expect(checkHeaderKey('k2', ['k1', 'k2'])).toBe('valid');
    expect(checkHeaderKey('k1', [])).toBe('invalid');
  });
});
