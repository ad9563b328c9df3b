import type { PlatformConfig } from '../src/sdk/index.js';
import { fillEnvironmentPlaceholders } from '../src/index.js';
import { CliError } from '../cli/library.js';
import type { SecretsFile } from './secrets-file.js';

/** Variables of the platform's own environment a replica keeps: how to find programs and reach the network, nothing of the platform's configuration. */
const INHERITED_VARIABLES = [
  'PATH',
  'HOME',
  'TMPDIR',
  'TZ',
  'LANG',
  'NODE_EXTRA_CA_CERTS',
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'NO_PROXY',
  'http_proxy',
  'https_proxy',
  'no_proxy',
];

/**
 * Those of them that name places of the platform's machine: a container has its image's own,
 * so a replica running in one does not get them.
 */
const HOST_PLACE_VARIABLES = new Set(['PATH', 'HOME', 'TMPDIR', 'NODE_EXTRA_CA_CERTS']);

/** What the platform knows of one actor when it writes the environment of its replicas. */
export interface ActorEnvironmentInputs {
  readonly ref: string;
  readonly config: PlatformConfig;
  /** The secrets file `${secret:NAME}` is filled from. */
  readonly secrets: SecretsFile;
  /** The platform's own environment: `${NAME}` and the platform-managed settings come from it. */
  readonly platformEnv: Readonly<Record<string, string | undefined>>;
  /** The group's key, when the actor mounts peer reads. */
  readonly meshKey: string | undefined;
  /** The run's secret (`PLATFORM_SECRET`): the replica answers only requests that carry it. */
  readonly platformSecret: string;
  /** `DATABASE_URL` (PostgreSQL) or `DATA_DIR` (SQLite), as the platform decided. */
  readonly database: { readonly DATABASE_URL: string } | { readonly DATA_DIR: string };
  /** The service address of every hosted actor, by ref (siblings reach each other through it). */
  readonly services: ReadonlyMap<string, { readonly host: string; readonly port: number }>;
  /** Whether the replicas run in containers (`--image`): they keep their image's `PATH`, `HOME`, `TMPDIR`. */
  readonly inContainer?: boolean;
}

/** The Kubernetes-style variable prefix of a service: `mesh-actor` → `MESH_ACTOR`. */
function serviceVariablePrefix(ref: string): string {
  return ref.toUpperCase().replace(/[^A-Z0-9]/g, '_');
}

/**
 * The names of the settings the platform sets (`x-platform-managed-by: platform`), upper-cased
 * as the actor reads them from its environment (`llm_model` ← `LLM_MODEL`).
 */
function platformManagedVariables(config: PlatformConfig): string[] {
  const properties = (config.settings.properties ?? {}) as Record<string, Record<string, unknown>>;
  return Object.entries(properties)
    .filter(([, property]) => property['x-platform-managed-by'] === 'platform')
    .map(([key]) => key.toUpperCase());
}

/**
 * The environment every replica of an actor starts with, except its `PORT` and `INSTANCE_ID`,
 * in the order the platform applies it: a few transport variables of the platform's own
 * environment (`PATH`, proxies; in a container only those that name no place of the machine); each platform-managed setting the platform's environment sets;
 * `deployment.env` with `${secret:NAME}` filled from the secrets file and `${NAME}` from the
 * platform's environment (`MESH_KEY` of a mesh actor is its group's key); then what only the
 * platform decides: `ACTOR_PLATFORM=true`, `HOST`, `PLATFORM_SECRET`, the database, `MESH_KEY`, and
 * `<REF>_SERVICE_HOST`/`<REF>_SERVICE_PORT` of every hosted actor, as a Kubernetes cluster sets them.
 * A missing secret or variable is refused naming it (`missing_secret`, `missing_variable`);
 * no message ever holds a value.
 * @param inputs the actor, the secrets, the platform's environment and its decisions
 */
export function actorEnvironment(inputs: ActorEnvironmentInputs): Record<string, string> {
  const { config, ref, secrets, platformEnv } = inputs;
  const env: Record<string, string> = {};
  for (const name of INHERITED_VARIABLES) {
    if (inputs.inContainer === true && HOST_PLACE_VARIABLES.has(name)) continue;
    const value = platformEnv[name];
    if (value !== undefined) env[name] = value;
  }
  for (const name of platformManagedVariables(config)) {
    const value = platformEnv[name];
    if (value !== undefined) env[name] = value;
  }
  for (const [name, value] of Object.entries(config.deployment.env)) {
    env[name] = fillEnvironmentPlaceholders(value, (wanted, secret) => {
      if (secret) {
        if (wanted === 'MESH_KEY' && inputs.meshKey !== undefined) return inputs.meshKey;
        const found = secrets.values.get(wanted);
        if (found !== undefined) return found;
        const where = secrets.present
          ? `${secrets.path} has no ${wanted}`
          : `there is no secrets file at ${secrets.path}`;
        throw new CliError(
          'refused',
          'missing_secret',
          `${ref}: deployment.env.${name} needs the secret ${wanted}, but ${where}: add the line ${wanted}=… (pass another file with --secrets)`,
        );
      }
      const found = platformEnv[wanted];
      if (found !== undefined) return found;
      throw new CliError(
        'refused',
        'missing_variable',
        `${ref}: deployment.env.${name} needs \${${wanted}} from the platform's environment: set ${wanted} where you run actorkit platform`,
      );
    });
  }
  env.ACTOR_PLATFORM = 'true';
  env.HOST = '127.0.0.1';
  env.PLATFORM_SECRET = inputs.platformSecret;
  Object.assign(env, inputs.database);
  if (inputs.meshKey !== undefined) env.MESH_KEY = inputs.meshKey;
  for (const [serviceRef, address] of inputs.services) {
    const prefix = serviceVariablePrefix(serviceRef);
    env[`${prefix}_SERVICE_HOST`] = address.host;
    env[`${prefix}_SERVICE_PORT`] = String(address.port);
  }
  return env;
}
