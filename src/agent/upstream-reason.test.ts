import { describe, expect, it } from 'vitest';
import { UPSTREAM_REASON_MAX_LENGTH, upstreamReason } from './upstream-reason.js';

describe('upstreamReason', () => {
  it.each([
    [
      'OpenAI, LiteLLM, OpenRouter',
      { error: { message: 'Invalid model', type: 'invalid_request_error', code: 'model_not_found' } },
      { message: 'Invalid model', code: 'model_not_found' },
    ],
    [
      'an error type without a code',
      { error: { message: 'Invalid model', type: 'invalid_request_error' } },
      { message: 'Invalid model', code: 'invalid_request_error' },
    ],
    ['Ollama, Helicone', { error: 'model "x" not found' }, { message: 'model "x" not found' }],
    [
      'Portkey',
      { status: 'failure', message: 'Either x-portkey-config or x-portkey-provider header is required' },
      { message: 'Either x-portkey-config or x-portkey-provider header is required' },
    ],
    [
      "Portkey's wrapped text answer",
      { 'html-message': 'Message: fetch failed' },
      { message: 'Message: fetch failed' },
    ],
    ['FastAPI', { detail: 'Not authenticated' }, { message: 'Not authenticated' }],
    [
      'an RFC 9457 problem',
      { title: 'Bad Gateway', code: 'upstream_down' },
      { message: 'Bad Gateway', code: 'upstream_down' },
    ],
    ['a numeric code', { error: { message: 'Rate limited', code: 429 } }, { message: 'Rate limited', code: '429' }],
    ['plain text', 'upstream connect error', { message: 'upstream connect error' }],
    [
      'an HTML page',
      '<html><head><style>b{}</style></head><body><h1>502 Bad Gateway</h1> nginx</body></html>',
      { message: '502 Bad Gateway nginx' },
    ],
  ])('reads %s', (_, body, reason) => {
    expect(upstreamReason(body)).toEqual(reason);
  });

  it.each([[undefined], [null], [{}], [{ error: {} }], [''], [[1, 2]], [{ message: 3 }]])(
    'gives none for %j',
    (body) => {
      expect(upstreamReason(body)).toBeUndefined();
    },
  );

  it('redacts before it cuts, so no part of a secret survives the cut', () => {
    const secret = 'sk-SECRET-0123456789';
    const message = `${'x'.repeat(UPSTREAM_REASON_MAX_LENGTH - 5)} ${secret}`;
    const reason = upstreamReason({ error: { message } }, (text) => text.replaceAll(secret, '[redacted]'));
    expect(reason?.message).not.toContain('sk-SEC');
    expect(reason?.message.endsWith('…')).toBe(true);
    expect(reason?.message).toHaveLength(UPSTREAM_REASON_MAX_LENGTH + 1);
  });
});
