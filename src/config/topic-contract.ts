/** One endpoint of the actor topic contract. */
export interface ContractEndpoint {
  readonly method: 'get' | 'post' | 'put';
  readonly path: string;
}

/** Topic contract v1.0: the endpoints the platform requires of every actor. */
export const REQUIRED_ENDPOINTS: readonly ContractEndpoint[] = [
  { method: 'post', path: '/agent/invoke' },
  { method: 'get', path: '/health' },
  { method: 'get', path: '/ready' },
  { method: 'get', path: '/metrics' },
];

/** Topic contract v1.0: endpoints every generated actor should have; missing ones are reported, not failed. */
export const RECOMMENDED_ENDPOINTS: readonly ContractEndpoint[] = [
  { method: 'get', path: '/stats' },
  { method: 'get', path: '/stats/{tenant_id}' },
  { method: 'put', path: '/settings' },
  { method: 'get', path: '/api/actor/metadata' },
  { method: 'get', path: '/api/actor/platform-config' },
];

/** What `checkTopicContract` found. */
export interface TopicContractReport {
  readonly version: '1.0';
  readonly missingRequired: ContractEndpoint[];
  readonly missingRecommended: ContractEndpoint[];
  /** Routes that must not exist but do, e.g. the retired `/api/actor/configuration-schema`. */
  readonly retiredPresent: ContractEndpoint[];
}

const RETIRED_ENDPOINTS: readonly ContractEndpoint[] = [{ method: 'get', path: '/api/actor/configuration-schema' }];

/** Normalises `{param}` and `:param` path templates so both spellings compare equal. */
function templateKey(path: string): string {
  return path.replace(/\{[^}]+\}|:[A-Za-z_][\w]*/g, '{}');
}

/**
 * Checks an OpenAPI document against topic contract v1.0.
 * @param openapi the actor's OpenAPI document (its `paths` are read)
 */
export function checkTopicContract(openapi: unknown): TopicContractReport {
  const paths = (openapi as { paths?: Record<string, Record<string, unknown>> } | null)?.paths;
  if (typeof paths !== 'object' || paths === null) throw new Error('The OpenAPI document has no `paths` object');
  const present = new Set<string>();
  for (const [path, operations] of Object.entries(paths)) {
    for (const method of Object.keys(operations ?? {})) present.add(`${method.toLowerCase()} ${templateKey(path)}`);
  }
  const has = (endpoint: ContractEndpoint) => present.has(`${endpoint.method} ${templateKey(endpoint.path)}`);
  return {
    version: '1.0',
    missingRequired: REQUIRED_ENDPOINTS.filter((endpoint) => !has(endpoint)),
    missingRecommended: RECOMMENDED_ENDPOINTS.filter((endpoint) => !has(endpoint)),
    retiredPresent: RETIRED_ENDPOINTS.filter(has),
  };
}

/** `POST /agent/invoke` style label of an endpoint. */
export function endpointLabel(endpoint: ContractEndpoint): string {
  return `${endpoint.method.toUpperCase()} ${endpoint.path}`;
}
