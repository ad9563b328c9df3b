// The workflow-tool proxy (`integration_type: n8n`).

export { WORKFLOW_PREFIX, workflowProxyRouter, type WorkflowProxyOptions } from './workflow-proxy-router.js';
