import { EXPOSABLE_OPERATIONS, MCP_EDGE_OPERATION } from '../../platform-annotations.js';
import { jsonPointer } from '../../../core/json-pointer.js';
import { definePlatformRule, type RuleFinding } from '../platform-rule.js';
import { asObject } from './setting-fields.js';

const NEVER_EXPOSABLE = /^(settings|oauth)\b/i;

function servesMcp(root: Record<string, unknown> | undefined): boolean {
  const endpoints = asObject(root?.contract)?.endpoints;
  return Array.isArray(endpoints) && endpoints.some((endpoint) => asObject(endpoint)?.path === '/mcp');
}

/**
 * Rule G: `external_api.operations` is a subset of `chat`, `status`, `health` (settings and OAuth
 * are never exposable), plus `mcp` when `contract.endpoints` lists `/mcp`: the MCP surface offers
 * only chat, the read-only domain tools and the status, health and card resources. The edge is only enabled, and only lists operations, when
 * `platform_expose_external_api` allows it.
 */
export const ruleGExternalApi = definePlatformRule({
  letter: 'G',
  name: 'external-api',
  checks:
    '`external_api.operations` ⊆ {`chat`, `status`, `health`}, plus `mcp` when `contract.endpoints` lists `/mcp` (settings and OAuth never; see [docs/surfaces.md](surfaces.md#mcp-server-expose_mcp)); `enabled` only when `platform_expose_external_api`; no operations while disabled',
  pointers: '`/external_api/operations/<i>`, `/external_api/enabled`',
  check(config) {
    const root = asObject(config);
    const api = asObject(root?.external_api);
    if (api === undefined) return [];
    const problems: RuleFinding[] = [];
    const operations = Array.isArray(api.operations) ? api.operations : [];
    operations.forEach((operation, index) => {
      if (typeof operation !== 'string' || (EXPOSABLE_OPERATIONS as readonly string[]).includes(operation)) return;
      if (operation === MCP_EDGE_OPERATION && servesMcp(root)) return;
      const why = NEVER_EXPOSABLE.test(operation)
        ? 'settings and OAuth are never exposable'
        : operation === MCP_EDGE_OPERATION
          ? 'the actor does not serve /mcp (turn expose_mcp on)'
          : `only ${EXPOSABLE_OPERATIONS.join(', ')} may be exposed (and mcp when the actor serves /mcp)`;
      problems.push({
        pointer: jsonPointer('external_api', 'operations', index),
        message: `operation '${operation}' cannot be exposed: ${why}`,
      });
    });
    const allowed = asObject(root?.features)?.platform_expose_external_api;
    if (api.enabled === true && allowed === false) {
      problems.push({
        pointer: '/external_api/enabled',
        message: "'enabled' is true but features.platform_expose_external_api is false",
      });
    }
    if (api.enabled === false && operations.length > 0) {
      problems.push({
        pointer: '/external_api/operations',
        message: "'operations' must be empty while the external API is disabled",
      });
    }
    return problems;
  },
});
