import type { PlatformConfig } from '../../src/sdk/index.js';
import { parseEnvironmentPlaceholder, type ENVIRONMENT_VARIABLES } from '../../src/index.js';
import { CliError } from '../../cli/library.js';
import type { ConfigReference, SecretReference } from './kubernetes-object.js';
import { actorConfigMapName, actorSecretName, meshSecretName } from './manifest-names.js';

/** A variable the actor reads, named so the compiler checks it against the environment table. */
type VariableName = keyof typeof ENVIRONMENT_VARIABLES;

const PORT: VariableName = 'PORT';
const DATABASE_URL: VariableName = 'DATABASE_URL';
const MESH_KEY: VariableName = 'MESH_KEY';

/** One entry of a container's `env`: a plain value, or a key of a Secret or ConfigMap. */
type EnvVar =
  | { readonly name: string; readonly value: string }
  | {
      readonly name: string;
      readonly valueFrom: { readonly secretKeyRef: { readonly name: string; readonly key: string } };
    }
  | {
      readonly name: string;
      readonly valueFrom: { readonly configMapKeyRef: { readonly name: string; readonly key: string } };
    };

/** The container's environment and the Secrets and ConfigMaps it reads, which the author creates. */
export interface ContainerEnvironment {
  readonly env: readonly EnvVar[];
  readonly secrets: readonly SecretReference[];
  readonly configValues: readonly ConfigReference[];
  /** Whether `DATABASE_URL` is set (declared, or required for replicas): the state then lives in that database, not in SQLite under `DATA_DIR`. */
  readonly databaseConfigured: boolean;
}

/**
 * The container environment of an actor, from `deployment.env`: a plain value stays a value;
 * `${secret:NAME}` becomes a `secretKeyRef` to key `NAME` of `<slug>-secrets`; `${NAME}` a
 * `configMapKeyRef` to key `NAME` of `<slug>-env`. `PORT` is `deployment.port` unless declared. A
 * fleet-mesh actor reads `MESH_KEY` from its group's Secret, `actorkit-mesh-<group>`. An actor that
 * may run more than one replica needs PostgreSQL: without a `DATABASE_URL` it reads one from its
 * Secret, and a `DATABASE_URL` that is not `postgres://…` is refused (`replicas_need_postgres`), as
 * is a value that mixes text with a placeholder (`partial_placeholder`).
 * @param config the actor's `src/platform/config.json`
 * @param meshGroup the fleet-mesh group of the actor
 */
export function containerEnvironment(config: PlatformConfig, meshGroup: string): ContainerEnvironment {
  const { slug } = config.actor;
  const { env: declared, port, replicas } = config.deployment;
  const secrets: SecretReference[] = [];
  const configValues: ConfigReference[] = [];
  const fromSecret = (variable: string, secret: string, key: string): EnvVar => {
    secrets.push({ secret, key, variable });
    return { name: variable, valueFrom: { secretKeyRef: { name: secret, key } } };
  };
  const entries: [string, string][] = [
    ...(PORT in declared ? [] : [[PORT, String(port)] as [string, string]]),
    ...Object.entries(declared),
  ];
  if (config.features.fleet_mesh && !(MESH_KEY in declared)) entries.push([MESH_KEY, `\${secret:${MESH_KEY}}`]);
  const multiReplica = replicas.max > 1;
  if (multiReplica && !(DATABASE_URL in declared)) entries.push([DATABASE_URL, `\${secret:${DATABASE_URL}}`]);
  const env = entries.map(([variable, value]): EnvVar => {
    const placeholder = parseEnvironmentPlaceholder(value);
    if (variable === MESH_KEY && config.features.fleet_mesh)
      return fromSecret(variable, meshSecretName(meshGroup), placeholder?.name ?? MESH_KEY);
    if (placeholder?.secret) return fromSecret(variable, actorSecretName(slug), placeholder.name);
    if (placeholder) {
      configValues.push({ configMap: actorConfigMapName(slug), key: placeholder.name, variable });
      return {
        name: variable,
        valueFrom: { configMapKeyRef: { name: actorConfigMapName(slug), key: placeholder.name } },
      };
    }
    if (/\$\{[^}]*\}/.test(value)) {
      throw new CliError(
        'refused',
        'partial_placeholder',
        `${slug}: deployment.env.${variable} mixes text with a placeholder ('${value}'); a manifest takes a whole value from a Secret or ConfigMap, so make it '\${NAME}' or '\${secret:NAME}'`,
      );
    }
    if (variable === DATABASE_URL && multiReplica && !/^postgres(?:ql)?:\/\//.test(value)) {
      throw new CliError(
        'refused',
        'replicas_need_postgres',
        `${slug}: replicas.max is ${replicas.max}, and replicas share one PostgreSQL; deployment.env.DATABASE_URL is not a postgres:// URL (make it '\${secret:DATABASE_URL}')`,
      );
    }
    return { name: variable, value };
  });
  return { env, secrets, configValues, databaseConfigured: entries.some(([variable]) => variable === DATABASE_URL) };
}
