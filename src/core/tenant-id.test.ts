import { describe, expect, it } from 'vitest';
import { ActorError } from './actor-error.js';
import { parseTenantId, tenantIdIssue } from './tenant-id.js';

describe('tenant ids', () => {
  it('accepts letters, digits and . _ : - up to 128 characters', () => {
    expect(tenantIdIssue('acme')).toBeUndefined();
    expect(tenantIdIssue('a.b_c:d-9')).toBeUndefined();
    expect(tenantIdIssue('x'.repeat(128))).toBeUndefined();
    expect(parseTenantId('acme', '/tenant_id')).toBe('acme');
  });

  it('says why anything else is not one', () => {
    expect(tenantIdIssue('')).toBe('must not be empty');
    expect(tenantIdIssue('x'.repeat(129))).toBe('must be at most 128 characters');
    expect(tenantIdIssue('a/b')).toBe('may contain only letters, digits and . _ : -');
    expect(tenantIdIssue(42)).toBeDefined();
    expect(tenantIdIssue(undefined)).toBeDefined();
  });

  it('turns a malformed id into a 422 validation_failed naming the field', () => {
    const error = (() => {
      try {
        parseTenantId('no spaces', '/metadata/tenant_id');
      } catch (thrown) {
        return thrown;
      }
    })();
    expect(error).toBeInstanceOf(ActorError);
    expect(error).toMatchObject({
      status: 422,
      code: 'validation_failed',
      detail: 'The request body has 1 invalid field',
      errors: [{ pointer: '/metadata/tenant_id', detail: 'may contain only letters, digits and . _ : -' }],
    });
    expect(() => parseTenantId('', '/tenant_id', 'tenant_id is malformed')).toThrow(
      expect.objectContaining({ detail: 'tenant_id is malformed' }),
    );
  });
});
