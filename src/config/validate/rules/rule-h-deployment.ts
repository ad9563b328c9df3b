import { PLATFORM_ANNOTATION_KEYS } from '../../platform-annotations.js';
import { secretSettingKeys, type JsonSchemaDocument } from '../../settings-json-schema.js';
import { jsonPointer } from '../../../core/json-pointer.js';
import { definePlatformRule, type RuleFinding } from '../platform-rule.js';
import { annotationPointer, asObject, settingFields } from './setting-fields.js';

/** Names of environment variables that hold secrets, which never belong in `config.json`. */
const SECRET_ENV_NAME = /(^|_)(SECRET|PASSWORD|PASSWD|TOKEN|API_?KEY|PRIVATE_KEY|MESH_KEY|CREDENTIALS?)$/i;

/**
 * Rule H: the deployment is coherent — `readiness_path` is `/ready` exactly when the readiness
 * probe is declared (null otherwise), `health_path` is `/health`, requests do not exceed limits,
 * `replicas.min` <= `replicas.max` — and secrets stay out: secret fields are `managed-by: user`
 * with no default, and no environment variable is named like a secret unless its value is the
 * placeholder `${secret:NAME}` the platform fills from its secret store.
 */
export const ruleHDeployment = definePlatformRule({
  letter: 'H',
  name: 'deployment',
  checks:
    '`readiness_path` is `/ready` exactly when the probe is declared, else `null`; `health_path` is `/health`; requests ≤ limits (Kubernetes quantities compared by value); `replicas.min` ≤ `max`; secret fields are `managed-by: user` with no `default`; no `env` variable named like a secret (`…_API_KEY`, `…_TOKEN`, `…_SECRET`, `…_PASSWORD`)',
  pointers: 'the value concerned',
  check(config) {
    const root = asObject(config);
    const deployment = asObject(root?.deployment);
    return [...deploymentProblems(deployment, asObject(root?.features)), ...secretProblems(config)];
  },
});

function deploymentProblems(
  deployment: Record<string, unknown> | undefined,
  features: Record<string, unknown> | undefined,
): RuleFinding[] {
  if (deployment === undefined) return [];
  const problems: RuleFinding[] = [];
  const problem = (pointer: string, message: string) => problems.push({ pointer, message });
  const probe = features?.declare_readiness_probe;
  const readiness = deployment.readiness_path;
  if (probe === true && readiness !== '/ready' && 'readiness_path' in deployment) {
    problem(
      '/deployment/readiness_path',
      `'readiness_path' must be "/ready" when declare_readiness_probe is true (got ${JSON.stringify(readiness)})`,
    );
  }
  if (probe === false && readiness !== null && 'readiness_path' in deployment) {
    problem(
      '/deployment/readiness_path',
      `'readiness_path' must be null when declare_readiness_probe is false (got ${JSON.stringify(readiness)})`,
    );
  }
  if ('health_path' in deployment && deployment.health_path !== '/health') {
    problem(
      '/deployment/health_path',
      `'health_path' must be "/health" (got ${JSON.stringify(deployment.health_path)})`,
    );
  }
  const resources = asObject(deployment.resources);
  const requests = asObject(resources?.requests);
  const limits = asObject(resources?.limits);
  for (const resource of ['cpu', 'memory']) {
    const requested = parseKubernetesQuantity(requests?.[resource]);
    const limit = parseKubernetesQuantity(limits?.[resource]);
    if (requested !== undefined && limit !== undefined && requested > limit) {
      problem(
        jsonPointer('deployment', 'resources', 'requests', resource),
        `requests.${resource} (${String(requests?.[resource])}) exceeds limits.${resource} (${String(limits?.[resource])})`,
      );
    }
  }
  const replicas = asObject(deployment.replicas);
  if (typeof replicas?.min === 'number' && typeof replicas.max === 'number' && replicas.min > replicas.max) {
    problem('/deployment/replicas/min', `replicas.min (${replicas.min}) exceeds replicas.max (${replicas.max})`);
  }
  for (const [name, value] of Object.entries(asObject(deployment.env) ?? {})) {
    if (SECRET_ENV_NAME.test(name) && value !== `\${secret:${name}}`) {
      problem(
        jsonPointer('deployment', 'env', name),
        `environment variable '${name}' looks like a secret; secrets belong in settings (writeOnly) or as the placeholder "\${secret:${name}}", never in config.json`,
      );
    }
  }
  return problems;
}

function secretProblems(config: unknown): RuleFinding[] {
  const fields = settingFields(config);
  const wellFormed: JsonSchemaDocument = {
    properties: Object.fromEntries(fields.map((field) => [field.key, field.schema])),
  };
  const secrets = new Set(secretSettingKeys(wellFormed));
  const managedBy = PLATFORM_ANNOTATION_KEYS.managedBy;
  const problems: RuleFinding[] = [];
  for (const field of fields.filter((candidate) => secrets.has(candidate.key))) {
    if (field.schema[managedBy] !== undefined && field.schema[managedBy] !== 'user') {
      problems.push({
        pointer: annotationPointer(field, managedBy),
        message: `secret setting '${field.key}' must be managed by 'user'`,
      });
    }
    if ('default' in field.schema) {
      problems.push({
        pointer: annotationPointer(field, 'default'),
        message: `secret setting '${field.key}' must not carry a default`,
      });
    }
  }
  return problems;
}

const SUFFIX_FACTORS: Record<string, number> = {
  '': 1,
  m: 1e-3,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

/**
 * Parses a Kubernetes resource quantity (`100m`, `0.5`, `128Mi`, `1G`) to a plain number, or
 * `undefined` when the text is not a quantity.
 */
function parseKubernetesQuantity(quantity: unknown): number | undefined {
  if (typeof quantity !== 'string') return undefined;
  const match = /^([0-9]+(?:\.[0-9]+)?)(m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei)?$/.exec(quantity);
  if (match === null) return undefined;
  return Number(match[1]) * (SUFFIX_FACTORS[match[2] ?? ''] ?? Number.NaN);
}
