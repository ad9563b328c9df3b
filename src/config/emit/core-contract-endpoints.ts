import type { ContractEndpoint } from '../platform-config.js';

/**
 * The always-mounted routes `config.json` lists under `contract.endpoints`: required, then
 * recommended, then always, each in the route table's order. Written by hand because this layer
 * sits below `src/routes` and cannot import the table; `src/routes/core-routes.test.ts` fails
 * when it and the routes' `contract` roles disagree.
 */
export const CORE_CONTRACT_ENDPOINTS: readonly ContractEndpoint[] = [
  { method: 'POST', path: '/agent/invoke', presence: 'required' },
  { method: 'GET', path: '/health', presence: 'required' },
  { method: 'GET', path: '/metrics', presence: 'required' },
  { method: 'GET', path: '/ready', presence: 'required' },
  { method: 'GET', path: '/api/actor/metadata', presence: 'recommended' },
  { method: 'GET', path: '/api/actor/platform-config', presence: 'recommended' },
  { method: 'PUT', path: '/settings', presence: 'recommended' },
  { method: 'GET', path: '/stats', presence: 'recommended' },
  { method: 'GET', path: '/stats/{tenant_id}', presence: 'recommended' },
  { method: 'GET', path: '/', presence: 'always' },
  { method: 'GET', path: '/agent/invoke/{chat_id}/stream', presence: 'always' },
  { method: 'GET', path: '/agent/runs/{id}', presence: 'always' },
  { method: 'POST', path: '/agent/runs/{id}/approvals/{approval_id}', presence: 'always' },
  { method: 'POST', path: '/agent/runs/{id}/cancel', presence: 'always' },
  { method: 'GET', path: '/agent/runs/{id}/stream', presence: 'always' },
  { method: 'GET', path: '/docs', presence: 'always' },
  { method: 'GET', path: '/oauth/authorize', presence: 'always' },
  { method: 'GET', path: '/oauth/callback', presence: 'always' },
  { method: 'GET', path: '/openapi.json', presence: 'always' },
  { method: 'GET', path: '/settings', presence: 'always' },
  { method: 'GET', path: '/settings/schema', presence: 'always' },
];
