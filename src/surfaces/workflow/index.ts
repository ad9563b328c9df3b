// The workflow-tool proxy (`integration_type: n8n`).

export { DEFAULT_WORKFLOW_TIMEOUT_MS, WORKFLOW_PREFIX, workflowProxyRouter, type WorkflowProxyOptions } from './workflow-proxy-router.js';
export { ACTOR_CREDENTIAL_HEADERS, HOP_BY_HOP_HEADERS, proxyRequestHeaders, proxyResponseHeaders, type ForwardedHop } from './proxy-headers.js';
export { clientAddress } from './client-address.js';
