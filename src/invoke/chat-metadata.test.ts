import { describe, expect, it } from 'vitest';
import { createTestActor } from '../testing/create-test-actor.js';
import { MAX_METADATA_DEPTH } from './chat-metadata.js';

const valid = { user_identifier: 'u-1', session_id: 's-1', message: 'hello there' };

async function invoke(body: string) {
  const app = await createTestActor();
  const response = await app.request('/agent/invoke', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body,
  });
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    body: (await response.json()) as { code?: string; errors?: { pointer: string; detail: string }[] },
  };
}

/** `depth` objects nested in each other, as JSON text (never built as a value: that would recurse). */
function nested(depth: number, open = '{"a":', close = '}'): string {
  return `${open.repeat(depth - 1)}{}${close.repeat(depth - 1)}`;
}

describe('the metadata of a chat request', () => {
  it('refuses an array, empty or not, with a 422 naming /metadata (issue #16 item 18)', async () => {
    for (const metadata of ['[]', '[1, 2]', '[{"tenant_id": "acme"}]']) {
      const { status, body } = await invoke(
        `{"user_identifier":"u","session_id":"s","message":"hi","metadata":${metadata}}`,
      );
      expect(status, metadata).toBe(422);
      expect(body.errors).toEqual([{ pointer: '/metadata', detail: expect.stringContaining('object') }]);
    }
  });

  it(`refuses nesting deeper than ${MAX_METADATA_DEPTH} levels with a 422, not a 500, however deep (issue #16 item 8)`, async () => {
    for (const depth of [MAX_METADATA_DEPTH + 1, 5_000, 7_000]) {
      for (const [open, close] of [
        ['{"a":', '}'],
        ['[', ']'],
      ] as const) {
        const metadata = open === '[' ? `{"a":${'['.repeat(depth)}${']'.repeat(depth)}}` : nested(depth, open, close);
        const { status, type, body } = await invoke(
          `{"user_identifier":"u","session_id":"s","message":"hi","metadata":${metadata}}`,
        );
        expect(status, `${depth} ${open}`).toBe(422);
        expect(type).toBe('application/problem+json');
        expect(body.errors).toEqual([
          { pointer: '/metadata', detail: `must nest at most ${MAX_METADATA_DEPTH} levels deep` },
        ]);
      }
    }
  });

  it(`accepts nesting of exactly ${MAX_METADATA_DEPTH} levels`, async () => {
    const { status } = await invoke(JSON.stringify({ ...valid, metadata: JSON.parse(nested(MAX_METADATA_DEPTH)) }));
    expect(status).toBe(200);
  });

  it('still refuses more than 16 KiB, and names a bad string by its pointer', async () => {
    const big = await invoke(JSON.stringify({ ...valid, metadata: { note: 'x'.repeat(17_000) } }));
    expect(big.status).toBe(422);
    expect(big.body.errors).toEqual([{ pointer: '/metadata', detail: 'must be at most 16 KiB when serialised' }]);
    const nul = await invoke(JSON.stringify({ ...valid, metadata: { list: ['ok', { deep: 'a\u0000' }] } }));
    expect(nul.status).toBe(422);
    expect(nul.body.errors?.map((error) => error.pointer)).toEqual(['/metadata/list/1/deep']);
  });
});
