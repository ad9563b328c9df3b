import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { invalidFieldCount, validationError, validationFailed } from './validation-problem.js';

describe('the validation_failed problem', () => {
  it('counts the bad fields in words', () => {
    expect(invalidFieldCount('The request body', 1)).toBe('The request body has 1 invalid field');
    expect(invalidFieldCount('The settings', 3)).toBe('The settings has 3 invalid fields');
  });

  it('is built the same way from field problems and from valibot issues', () => {
    const byHand = validationFailed([{ pointer: '/name', detail: 'is required' }]);
    const parsed = v.safeParse(v.strictObject({ name: v.string() }), {});
    expect(parsed.success).toBe(false);
    const fromIssues = validationError(parsed.issues!);
    for (const error of [byHand, fromIssues]) {
      expect(error).toMatchObject({
        status: 422,
        code: 'validation_failed',
        title: 'Validation failed',
        detail: 'The request body has 1 invalid field',
        errors: [{ pointer: '/name', detail: 'is required' }],
      });
    }
  });

  it('keeps one entry per field, the first issue of each, and names unknown keys', () => {
    const parsed = v.safeParse(
      v.strictObject({
        age: v.pipe(v.number(), v.minValue(0, 'must not be negative'), v.integer('must be an integer')),
      }),
      { age: -1.5, extra: true },
    );
    expect(validationError(parsed.issues!, 'The payload').errors).toEqual([
      { pointer: '/age', detail: 'must not be negative' },
      { pointer: '/extra', detail: 'is not a known field' },
    ]);
  });

  it('takes a detail of its own', () => {
    expect(validationFailed([], 'The body must be a JSON object')).toMatchObject({
      detail: 'The body must be a JSON object',
      errors: [],
    });
  });
});
