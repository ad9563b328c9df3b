import { DEFAULT_TENANT, headerTenant, parseTenantId } from '../core/tenant-id.js';
import type { ChatRequest } from './chat-request.js';

/**
 * The tenant of a chat request: `X-Tenant-Id` (set by the platform), else `metadata.tenant_id`,
 * else `default`. A malformed header is a 400 `invalid_header`; a malformed metadata value a 422.
 * @param header the `X-Tenant-Id` header, undefined when absent
 * @param request the validated chat request
 */
export function requestTenant(header: string | undefined, request: Pick<ChatRequest, 'metadata'>): string {
  const fromHeader = headerTenant(header);
  if (fromHeader !== undefined) return fromHeader;
  const fromMetadata = request.metadata?.tenant_id;
  return fromMetadata === undefined ? DEFAULT_TENANT : parseTenantId(fromMetadata, '/metadata/tenant_id');
}
