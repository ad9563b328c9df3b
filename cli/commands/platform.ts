import { type ArgsDef, defineCommand } from 'citty';
import { CliError, toCliFailure, type CliFailure } from '../cli-error.js';
import type { CliIo } from '../cli-io.js';
import {
  printFailure,
  printJson,
  printWarnings,
  repeatedOption,
  sharedArgs,
  startCommand,
  verbMeta,
} from './_shared.js';
import { problemBullet } from '../validate/actor-problem.js';

/**
 * The options of `platform`, their help naming the platform's defaults. They are read from
 * `actorkit/platform` when the verb runs or shows its help, so the verb list loads no platform.
 */
async function platformArgs() {
  const { DEFAULT_MESH_GROUP, DEFAULT_PLATFORM_PORT, DEFAULT_SECRETS_FILE, DEFAULT_STATE_DIR } = await import(
    '../../platform/index.js'
  );
  return {
    dirs: {
      type: 'positional',
      description: 'The actor folders to host (one or more, or none with --image)',
      required: false,
      valueHint: 'dir...',
    },
    image: {
      type: 'string',
      valueHint: 'ref',
      description:
        'Host a published image too (repeatable), e.g. 127.0.0.1:5000/actors/weather:v1.2.0: pulled and run as containers with podman or docker (or ACTORKIT_CONTAINER_CLI)',
    },
    port: {
      type: 'string',
      description: `The platform port on 127.0.0.1 (default ${DEFAULT_PLATFORM_PORT}; 0 picks a free one)`,
    },
    'replica-ports': {
      type: 'string',
      valueHint: 'first-last',
      description:
        'The ports on 127.0.0.1 the replicas and the service addresses listen on, lowest free first, e.g. 9100-9199 (default: any free port)',
    },
    replicas: {
      type: 'string',
      description: "Replicas per actor (default: each actor's deployment.replicas.min); more than 1 needs PostgreSQL",
    },
    'database-url': {
      type: 'string',
      valueHint: 'postgres://…',
      description: 'The PostgreSQL all replicas share, one schema per actor (default: DATABASE_URL, else SQLite)',
    },
    secrets: {
      type: 'string',
      valueHint: 'file',
      description: `NAME=value lines that fill \${secret:NAME}, mode 0600 (default: <state dir>/${DEFAULT_SECRETS_FILE})`,
    },
    'state-dir': {
      type: 'string',
      valueHint: 'dir',
      description: `Where the owner token, edge keys, mesh keys and SQLite files are kept (default ${DEFAULT_STATE_DIR})`,
    },
    'mesh-group': {
      type: 'string',
      valueHint: 'ref=group',
      description: `Put a mesh actor in another group than \`${DEFAULT_MESH_GROUP}\` (repeatable)`,
    },
    manifests: {
      type: 'string',
      valueHint: 'out',
      description: 'Instead of hosting: write the Kubernetes manifests of the actors into this folder, then exit',
    },
    namespace: {
      type: 'string',
      valueHint: 'name',
      description: 'With --manifests: the namespace of every object (default: the one kubectl uses)',
    },
    'image-tag': {
      type: 'string',
      valueHint: 'tag',
      description: 'With --manifests: the image tag of every actor (default: v<version> of each, as publish tags)',
    },
    ...sharedArgs,
  } as const satisfies ArgsDef;
}

/** A whole number from `min` to `max` given as an option, or a `bad_usage` refusal naming it. */
function wholeNumber(raw: string | undefined, option: string, min: number, max: number): number | undefined {
  if (raw === undefined) return undefined;
  if (!(/^\d+$/.test(raw.trim()) && Number(raw) >= min && Number(raw) <= max)) {
    throw new CliError(
      'refused',
      'bad_usage',
      `--${option} must be a number from ${min} to ${max}, got '${raw}' (see \`actorkit platform --help\`)`,
    );
  }
  return Number(raw);
}

/** `--mesh-group ref=group` pairs as a record, or a `bad_usage` refusal. */
function meshGroups(pairs: readonly string[]): Record<string, string> {
  const groups: Record<string, string> = {};
  for (const pair of pairs) {
    const match = /^([a-z0-9][a-z0-9-]*)=([a-z0-9][a-z0-9-]*)$/.exec(pair);
    if (match === null)
      throw new CliError(
        'refused',
        'bad_usage',
        `--mesh-group takes ref=group (lower-case letters, digits, dashes), got '${pair}'`,
      );
    groups[match[1] as string] = match[2] as string;
  }
  return groups;
}

/** The options that only concern hosting, refused with `--manifests`. */
const HOSTING_ONLY = ['image', 'port', 'replica-ports', 'replicas', 'database-url', 'secrets', 'state-dir'] as const;
/** The options that only concern `--manifests`, refused without it. */
const MANIFESTS_ONLY = ['namespace', 'image-tag'] as const;

/** The one mesh group `--mesh-group` pairs name for the manifests (all `fleet_mesh` actors share one Secret), or a `bad_usage` refusal. */
function manifestsMeshGroup(groups: Record<string, string>): string | undefined {
  const named = [...new Set(Object.values(groups))];
  if (named.length > 1)
    throw new CliError(
      'refused',
      'bad_usage',
      `--manifests puts every fleet_mesh actor in one mesh group (one Secret), but --mesh-group names ${named.join(' and ')}`,
    );
  return named[0];
}

/** Writes the Kubernetes manifests (`--manifests <out>`) and prints what was written, as `validate` prints its problems when an actor does not validate. */
async function writeManifests(
  dirs: readonly string[],
  out: string,
  options: { namespace?: string; imageTag?: string; meshGroup?: string; json: boolean; io: CliIo },
) {
  const { writeKubernetesManifests } = await import('../../platform/index.js');
  const { json, io, ...rest } = options;
  const result = await writeKubernetesManifests(dirs, { out, ...rest, io });
  if (result.status !== 'ok') return result;
  if (json) {
    const { objects: _objects, ...summary } = result;
    printJson(io, summary);
    return result;
  }
  printWarnings(io, result.warnings);
  io.stdout.write(
    `Wrote the Kubernetes manifests of ${result.actors.length} actor${result.actors.length === 1 ? '' : 's'} to ${result.out}:\n`,
  );
  for (const actor of result.actors) io.stdout.write(`  ${actor.file}: ${actor.objects.join(', ')}\n`);
  io.stdout.write(
    `Create the Secrets and ConfigMaps ${result.files.at(-1)} lists (no secret value is written), then: ${result.applyCommand}\n`,
  );
  return result;
}

/** Prints a failed or refused run (`validate`'s bullets when it carries problems) and passes the result on. */
function reportFailure<T extends { status: string }>(io: CliIo, json: boolean, ended: T): T {
  if (ended.status === 'ok') return ended;
  const failure = ended as unknown as CliFailure & { problems?: readonly Parameters<typeof problemBullet>[0][] };
  if (json) printJson(io, failure);
  else {
    printFailure(io, failure);
    for (const problem of failure.problems ?? []) io.stderr.write(`${problemBullet(problem)}\n`);
  }
  return ended;
}

/** `actorkit platform <dir...> [--image <ref>...]`: hosts actor folders and published images as the platform does, until Ctrl-C; with `--manifests`, writes their Kubernetes manifests instead. */
export default defineCommand({
  meta: verbMeta({
    name: 'platform',
    description:
      'Host actors as the platform does: platform mode, secrets, replicas on PostgreSQL behind readiness-gated round-robin, mesh keys, the gateway',
    example: 'actorkit platform ./weather ./news --replicas 2 --database-url postgres://localhost/actors',
    moreHelp: async () =>
      'The image publish pushed: with --image <ref> the platform pulls it and runs its replicas as containers on the host network, with the same environment, secrets, readiness probes and edge as a folder:\n\n  $ actorkit platform --image registry.example.com/actors/weather:v1.2.0\n\nPast one machine: with --manifests <out> it hosts nothing and writes the Kubernetes manifests of the actors (Deployment with the declared probes, resources and replicas, Service, Secret references, no secret value) into <out>, then exits:\n\n  $ actorkit platform ./weather ./news --manifests k8s --namespace actors',
  }),
  args: platformArgs,
  async run(context) {
    const { io } = startCommand('platform', context, await platformArgs(), true);
    const json = context.args.json === true;
    const dirs = (context.args._ ?? []).map(String);
    let result:
      | Awaited<ReturnType<typeof import('../../platform/index.js').runPlatform>>
      | Awaited<ReturnType<typeof import('../../platform/index.js').writeKubernetesManifests>>
      | CliFailure;
    try {
      const out = context.args.manifests;
      const given = (names: readonly string[]) =>
        names.filter((name) => context.args[name] !== undefined).map((name) => `--${name}`);
      if (out !== undefined) {
        if (given(HOSTING_ONLY).length > 0)
          throw new CliError(
            'refused',
            'bad_usage',
            `--manifests writes files and hosts nothing, so ${given(HOSTING_ONLY).join(', ')} does not apply`,
          );
        const meshGroup = manifestsMeshGroup(meshGroups(repeatedOption(context.rawArgs, 'mesh-group')));
        result = await writeManifests(dirs, out, {
          ...(context.args.namespace === undefined ? {} : { namespace: context.args.namespace }),
          ...(context.args['image-tag'] === undefined ? {} : { imageTag: context.args['image-tag'] }),
          ...(meshGroup === undefined ? {} : { meshGroup }),
          json,
          io,
        });
        return reportFailure(io, json, result);
      }
      if (given(MANIFESTS_ONLY).length > 0)
        throw new CliError(
          'refused',
          'bad_usage',
          `${given(MANIFESTS_ONLY).join(', ')} applies only with --manifests <out>`,
        );
      const { runPlatform } = await import('../../platform/index.js');
      const port = wholeNumber(context.args.port, 'port', 0, 65_535);
      const replicas = wholeNumber(context.args.replicas, 'replicas', 1, 64);
      const groups = meshGroups(repeatedOption(context.rawArgs, 'mesh-group'));
      const images = repeatedOption(context.rawArgs, 'image');
      result = await runPlatform(dirs, {
        ...(images.length === 0 ? {} : { images }),
        ...(port === undefined ? {} : { port }),
        ...(replicas === undefined ? {} : { replicas }),
        ...(context.args['replica-ports'] === undefined ? {} : { replicaPorts: context.args['replica-ports'] }),
        ...(context.args['database-url'] === undefined ? {} : { databaseUrl: context.args['database-url'] }),
        ...(context.args.secrets === undefined ? {} : { secretsFile: context.args.secrets }),
        ...(context.args['state-dir'] === undefined ? {} : { stateDir: context.args['state-dir'] }),
        meshGroups: groups,
        json,
        io,
      });
    } catch (error) {
      result = toCliFailure(error);
    }
    return reportFailure(io, json, result);
  },
});
