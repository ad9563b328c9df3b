import { describe, expect, it } from 'vitest';
import { createModelRedactor } from './model-secret-redactor.js';

describe('createModelRedactor', () => {
  it('strikes the key, credentials in URLs, and header values with their long words', () => {
    const redact = createModelRedactor({
      apiKey: 'sk-live-KEY',
      headers: { 'Helicone-Auth': 'Bearer sk-helicone-TOKEN', 'x-portkey-config': '{"provider":"openai","api_key":"sk-inner-KEY-99"}', 'x-portkey-provider': 'openai' },
    });
    expect(redact('bad key sk-live-KEY at http://bob:pw@10.0.0.1/v1')).toBe('bad key [redacted] at http://10.0.0.1/v1');
    expect(redact('token sk-helicone-TOKEN refused')).toBe('token [redacted] refused');
    expect(redact('config api_key sk-inner-KEY-99 is invalid')).toBe('config api_key [redacted] is invalid');
    expect(redact('openai error: model not found')).toBe('openai error: model not found');
  });

  it("strikes the server's address when given", () => {
    const redact = createModelRedactor({ baseUrl: 'http://gateway.internal:8787/v1' });
    expect(redact('could not reach http://gateway.internal:8787/v1/chat/completions')).toBe('could not reach [redacted]/chat/completions');
    expect(redact('gateway.internal:8787 refused')).toBe('[redacted] refused');
  });
});
