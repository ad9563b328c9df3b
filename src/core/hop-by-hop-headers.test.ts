import { describe, expect, it } from 'vitest';
import { withoutHopByHop } from './hop-by-hop-headers.js';

describe('withoutHopByHop', () => {
  it('drops the hop-by-hop headers, those Connection names and the extra ones, and keeps the rest', () => {
    const headers = new Headers({
      Connection: 'keep-alive, X-Hop',
      'Keep-Alive': 'timeout=5',
      TE: 'trailers',
      'X-Hop': '1',
      Host: 'a',
      'X-API-Key': 'k',
      'Content-Type': 'text/plain',
    });
    expect([...withoutHopByHop(headers, ['Host', 'x-api-key']).entries()]).toEqual([['content-type', 'text/plain']]);
  });
});
