import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ACTOR_PATHS, type PlatformConfig, validatePlatformConfig } from '../../src/sdk/index.js';
import {
  CliError,
  actorImageRepository,
  actorImageTag,
  readActorPackage,
  type ActorProblem,
  configFileProblems,
} from '../../cli/library.js';
import type { ActorManifestSource } from './actor-manifests.js';
import { readImageRuntime } from './image-runtime.js';

/** An actor folder whose `src/platform/config.json` does not validate: `validate`'s problems, nothing written. */
export class ManifestSourceProblems extends Error {
  override readonly name = 'ManifestSourceProblems';
  constructor(
    readonly actorDir: string,
    readonly problems: readonly ActorProblem[],
  ) {
    super(
      `${join(actorDir, ACTOR_PATHS.config)} does not validate (run \`actorkit validate ${actorDir}\`); no manifests were written`,
    );
  }
}

/**
 * Reads what an actor's manifests are written from: its `src/platform/config.json` (checked with
 * the platform schema and rules as `validate` checks the file; problems throw
 * {@link ManifestSourceProblems}), the image `publish` pushes (`actorkit.deployment.image_repo`
 * of `package.json`, tag `imageTag` or `v<version>`) and its Dockerfile's user and `DATA_DIR`.
 * @param root absolute path of the actor folder
 * @param options the image tag, namespace and fleet-mesh group
 */
export async function readManifestSource(
  root: string,
  options: { readonly imageTag?: string; readonly namespace?: string; readonly meshGroup: string },
): Promise<ActorManifestSource> {
  const manifest = await readActorPackage(root);
  const configPath = join(root, ACTOR_PATHS.config);
  if (!existsSync(configPath)) {
    throw new CliError(
      'refused',
      'no_platform_config',
      `${root} has no ${ACTOR_PATHS.config}: run \`actorkit validate ${root} --write\` to emit it`,
    );
  }
  const problems = await configFileProblems(configPath, { validatePlatformConfig });
  if (problems.length > 0)
    throw new ManifestSourceProblems(
      root,
      problems.map((problem) => ({ ...problem, in: ACTOR_PATHS.config })),
    );
  const config = JSON.parse(await readFile(configPath, 'utf8')) as PlatformConfig;
  const repo = actorImageRepository(manifest);
  const tag = actorImageTag(options.imageTag, manifest.version);
  if (!/^[a-z]/.test(config.actor.slug)) {
    throw new CliError(
      'refused',
      'slug_not_a_service_name',
      `${root}: the slug '${config.actor.slug}' names the Service, and a Kubernetes Service name starts with a letter; rename the actor`,
    );
  }
  return {
    config,
    version: manifest.version ?? config.actor.version,
    image: `${repo}:${tag}`,
    runtime: await readImageRuntime(root),
    ...(options.namespace ? { namespace: options.namespace } : {}),
    meshGroup: options.meshGroup,
  };
}
