import { describe, expect, it } from 'vitest';
import { checkUsage, repeatedOption } from './_shared.js';

const args = {
  dir: { type: 'positional' },
  ref: { type: 'string' },
  yes: { type: 'boolean' },
} as const;

describe('checkUsage', () => {
  it('accepts known options, values, negated booleans and the right number of arguments', () => {
    expect(() => checkUsage('x', ['d', '--ref', 'v1', '--yes', '--no-yes', '--ref=v2'], args)).not.toThrow();
  });

  it.each([
    [['d', '--force'], 'unknown option --force'],
    [['d', '--ref'], '--ref needs a value'],
    [['d', '--ref', '--yes'], '--ref needs a value'],
    [['d', 'e'], "unexpected argument 'e'"],
    [['d', '--', 'e'], "unexpected argument 'e'"],
    [['d', '--actor-id=1'], 'actor_id cannot be set'],
  ])('refuses %j', (raw, message) => {
    expect(() => checkUsage('x', raw, args)).toThrow(
      expect.objectContaining({ status: 'refused', message: expect.stringContaining(message) }),
    );
  });
});

describe('repeatedOption', () => {
  it('collects every value in order, in both spellings, and stops at --', () => {
    expect(repeatedOption(['--data', 'a=1', 'x', '--data=b=2', '--', '--data', 'c=3'], 'data')).toEqual(['a=1', 'b=2']);
  });
});
