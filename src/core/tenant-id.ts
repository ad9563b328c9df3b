import * as v from 'valibot';
import { ActorError } from './actor-error.js';
import { validationFailed } from './validation-problem.js';

/** Tenant ids (and session ids, which follow the same rule): 1–128 characters of letters, digits and `._:-`. */
export const TenantId = v.pipe(
  v.string(),
  v.minLength(1, 'must not be empty'),
  v.maxLength(128, 'must be at most 128 characters'),
  v.regex(/^[A-Za-z0-9._:-]+$/, 'may contain only letters, digits and . _ : -'),
);

/** Tenant when neither the platform header nor the request names one. */
export const DEFAULT_TENANT = 'default';

/** Why `value` is not a tenant id, or undefined when it is one. */
export function tenantIdIssue(value: unknown): string | undefined {
  const parsed = v.safeParse(TenantId, value);
  return parsed.success ? undefined : parsed.issues[0].message;
}

/**
 * Reads a tenant id given in a request; a malformed one is a 422 `validation_failed` naming the field.
 * @param value the raw value
 * @param pointer the JSON pointer of the field that carried it, e.g. `/metadata/tenant_id`
 * @param detail the problem's detail; by default the count of bad fields
 */
export function parseTenantId(value: unknown, pointer: string, detail?: string): string {
  const issue = tenantIdIssue(value);
  if (issue !== undefined) throw validationFailed([{ pointer, detail: issue }], detail);
  return value as string;
}

/**
 * The tenant `X-Tenant-Id` names, undefined when the header is absent; a malformed header is a
 * 400 `invalid_header`.
 * @param header the `X-Tenant-Id` header, undefined when absent
 */
export function headerTenant(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const issue = tenantIdIssue(header);
  if (issue !== undefined) throw new ActorError('invalid_header', { detail: `X-Tenant-Id ${issue}` });
  return header;
}
