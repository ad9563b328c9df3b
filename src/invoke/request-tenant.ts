import { ActorError } from '../core/actor-error.js';
import { DEFAULT_TENANT, parseTenantId, tenantIdIssue } from '../core/tenant-id.js';
import type { ChatRequest } from './chat-request.js';

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

/**
 * The tenant of an invoke: `X-Tenant-Id` (set by the platform), else `metadata.tenant_id`, else
 * `default`. A malformed header is a 400 `invalid_header`; a malformed metadata value a 422.
 * @param header the `X-Tenant-Id` header, undefined when absent
 * @param request the validated chat request
 */
export function requestTenant(header: string | undefined, request: ChatRequest): string {
  const fromHeader = headerTenant(header);
  if (fromHeader !== undefined) return fromHeader;
  const fromMetadata = request.metadata?.tenant_id;
  return fromMetadata === undefined ? DEFAULT_TENANT : parseTenantId(fromMetadata, '/metadata/tenant_id');
}
