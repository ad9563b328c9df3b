import { describe, expect, it } from 'vitest';
import { createModelRedactor } from './model-secret-redactor.js';

describe('createModelRedactor', () => {
  it('strikes the key, credentials in URLs, and header values with their long words', () => {
    const redact = createModelRedactor({
      apiKey: 'sk-live-KEY',
      headers: {
        'Helicone-Auth': 'Bearer sk-helicone-TOKEN',
        'x-portkey-config': '{"provider":"openai","api_key":"sk-inner-KEY-99"}',
        'x-portkey-provider': 'openai',
      },
    });
    expect(redact('bad key sk-live-KEY at http://bob:pw@10.0.0.1/v1')).toBe('bad key [redacted] at http://10.0.0.1/v1');
    expect(redact('token sk-helicone-TOKEN refused')).toBe('token [redacted] refused');
    expect(redact('config api_key sk-inner-KEY-99 is invalid')).toBe('config api_key [redacted] is invalid');
    expect(redact('openai error: model not found')).toBe('openai error: model not found');
  });

  it('strikes a quote of part of a key or header value of 8 or more characters, not shorter words', () => {
    const redact = createModelRedactor({
      apiKey: 'sk-proj-0123456789abcdef',
      headers: { 'x-gateway-key': 'gw-SECRET-abcdefgh', 'x-portkey-provider': 'openai' },
    });
    expect(redact('Incorrect API key provided: sk-proj-****cdef')).toBe(
      'Incorrect API key provided: [redacted]****cdef',
    );
    expect(redact('unknown key gw-SECRET-abcd…')).toBe('unknown key [redacted]…');
    expect(redact('key gw-SECRET-abcdefgh')).toBe('key [redacted]');
    expect(redact('key gw-SECR is short')).toBe('key gw-SECR is short');
    expect(redact('openai says no')).toBe('openai says no');
  });

  it("strikes the server's address when given", () => {
    const redact = createModelRedactor({ baseUrl: 'http://gateway.internal:8787/v1' });
    expect(redact('could not reach http://gateway.internal:8787/v1/chat/completions')).toBe(
      'could not reach [redacted]/chat/completions',
    );
    expect(redact('gateway.internal:8787 refused')).toBe('[redacted] refused');
  });
});
