import { describe, expect, it } from 'vitest';
import { rememberingLastAccepted } from './remembering-last-accepted.js';

describe('rememberingLastAccepted', () => {
  it('asks again for every value but the last one accepted, and never remembers a refusal', () => {
    const asked: string[] = [];
    const accepts = rememberingLastAccepted((value) => {
      asked.push(value);
      return value.startsWith('ok');
    });
    expect(['ok-1', 'ok-1', 'bad', 'bad', 'ok-1', 'ok-2', 'ok-1'].map(accepts)).toEqual([
      true,
      true,
      false,
      false,
      true,
      true,
      true,
    ]);
    expect(asked).toEqual(['ok-1', 'bad', 'bad', 'ok-2', 'ok-1']);
  });
});
