import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import {
  CliError,
  toCliFailure,
  type CliFailure,
  resolveCliIo,
  type CliIo,
  type ActorProblem,
} from '../../cli/library.js';
import { actorManifests, type ActorManifests } from './actor-manifests.js';
import type { ConfigReference, KubernetesObject, SecretReference } from './kubernetes-object.js';
import { MANIFESTS_README, manifestsReadme, manifestYaml, WRITTEN_BY_ACTORKIT } from './manifest-files.js';
import { ManifestSourceProblems, readManifestSource } from './read-manifest-source.js';
import { DEFAULT_MESH_GROUP } from '../platform-defaults.js';

/** A Kubernetes namespace or mesh-group name: a DNS-1123 label. */
const DNS_LABEL = /^[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?$/;

/** The inputs of {@link writeKubernetesManifests}. */
export interface KubernetesManifestsOptions {
  /** The folder to write into (created when missing), relative to `io.cwd`. */
  readonly out: string;
  /** The namespace every object is put in; none: the one `kubectl` uses. */
  readonly namespace?: string;
  /** The image tag of every actor; default `v<package.json version>` of each, as `publish` tags. */
  readonly imageTag?: string;
  /** The fleet-mesh group of the `fleet_mesh` actors, naming their shared Secret; default {@link DEFAULT_MESH_GROUP}. */
  readonly meshGroup?: string;
  readonly io?: Partial<CliIo>;
}

/** What was written for one actor. */
export interface ActorManifestSummary {
  readonly slug: string;
  /** The actor folder (absolute). */
  readonly actorDir: string;
  /** Its manifest file (absolute). */
  readonly file: string;
  readonly image: string;
  /** Every object in the file, as `Kind/name`. */
  readonly objects: readonly string[];
  readonly secrets: readonly SecretReference[];
  readonly configValues: readonly ConfigReference[];
}

/** A successful {@link writeKubernetesManifests}. */
export interface KubernetesManifestsSuccess {
  readonly status: 'ok';
  /** The folder written (absolute). */
  readonly out: string;
  /** Every file written (absolute): one per actor, then the README. */
  readonly files: readonly string[];
  readonly actors: readonly ActorManifestSummary[];
  /** Every object written, in file order, for a caller that checks or applies them itself. */
  readonly objects: readonly KubernetesObject[];
  /** What the author should know, e.g. a container that cannot be locked down. */
  readonly warnings: readonly string[];
  /** `kubectl apply -f <out>`. */
  readonly applyCommand: string;
}

/** A {@link writeKubernetesManifests} that wrote nothing: refused, or an actor's configuration does not validate. */
export type KubernetesManifestsFailure = CliFailure & {
  /** `validate`'s problems of the actor folder that stopped it. */
  readonly problems?: readonly ActorProblem[];
  readonly actorDir?: string;
};

/**
 * Writes the Kubernetes manifests of actor folders (the platform's own engine; what a
 * self-hosting author applies): for each folder, from its `src/platform/config.json`, one
 * `<slug>.yaml` with its Deployment, Service and, as declared, PersistentVolumeClaim,
 * HorizontalPodAutoscaler and PodDisruptionBudget; then a README listing the Secrets and
 * ConfigMaps to create (names and keys only: no secret value is ever written) and the
 * `kubectl apply -f <out>` command. Every actor is read and checked before anything is written;
 * a configuration that does not validate stops it with `validate`'s problems. A file in `out`
 * that actorkit did not write is never overwritten. Never throws.
 * @param dirs the actor folders, relative to `io.cwd`
 * @param options the output folder, namespace, image tag and mesh group
 * @example
 * const result = await writeKubernetesManifests(['examples/hello-actor'], { out: 'k8s', namespace: 'actors' });
 * if (result.status === 'ok') console.log(result.applyCommand);
 */
export async function writeKubernetesManifests(
  dirs: readonly string[],
  options: KubernetesManifestsOptions,
): Promise<KubernetesManifestsSuccess | KubernetesManifestsFailure> {
  const io = resolveCliIo(options.io);
  try {
    if (dirs.length === 0)
      throw new CliError('refused', 'no_actor', 'name at least one actor folder to write manifests for');
    const namespace = checkedLabel(options.namespace, 'namespace');
    const meshGroup = checkedLabel(options.meshGroup, 'mesh group') ?? DEFAULT_MESH_GROUP;
    const out = resolve(io.cwd, options.out);
    const built: BuiltActor[] = [];
    for (const dir of dirs) {
      const actorDir = resolve(io.cwd, dir);
      const source = await readManifestSource(actorDir, {
        ...(options.imageTag ? { imageTag: options.imageTag } : {}),
        ...(namespace ? { namespace } : {}),
        meshGroup,
      });
      const slug = source.config.actor.slug;
      const twin = built.find((actor) => actor.slug === slug);
      if (twin)
        throw new CliError(
          'refused',
          'duplicate_slug',
          `${twin.actorDir} and ${actorDir} are both '${slug}': one namespace holds one Deployment of that name`,
        );
      built.push({
        slug,
        actorDir,
        dir,
        image: source.image,
        file: join(out, `${slug}.yaml`),
        ...actorManifests(source),
      });
    }
    const readmePath = join(out, MANIFESTS_README);
    const readme = manifestsReadme({
      out: options.out,
      ...(namespace ? { namespace } : {}),
      actors: built,
    });
    const files = [
      ...built.map((actor) => ({ path: actor.file, text: manifestYaml(actor.dir, actor.objects) })),
      { path: readmePath, text: readme },
    ];
    await mkdir(out, { recursive: true });
    for (const file of files) await refuseForeignFile(file.path);
    for (const file of files) await writeFile(file.path, file.text);
    return {
      status: 'ok',
      out,
      files: files.map((file) => file.path),
      actors: built.map((actor) => ({
        slug: actor.slug,
        actorDir: actor.actorDir,
        file: actor.file,
        image: actor.image,
        objects: actor.objects.map((object) => `${object.kind}/${object.metadata.name}`),
        secrets: actor.secrets,
        configValues: actor.configValues,
      })),
      objects: built.flatMap((actor) => actor.objects),
      warnings: built.flatMap((actor) => actor.warnings),
      applyCommand: `kubectl apply -f ${options.out}`,
    };
  } catch (error) {
    if (error instanceof ManifestSourceProblems)
      return {
        status: 'failed',
        code: 'validation_failed',
        message: error.message,
        problems: error.problems,
        actorDir: error.actorDir,
      };
    return toCliFailure(error);
  }
}

/** One actor read and built, before anything is written. */
interface BuiltActor extends ActorManifests {
  readonly slug: string;
  readonly actorDir: string;
  /** The folder as the author named it. */
  readonly dir: string;
  readonly image: string;
  readonly file: string;
}

function checkedLabel(value: string | undefined, what: string): string | undefined {
  if (value === undefined || DNS_LABEL.test(value)) return value;
  throw new CliError(
    'refused',
    'invalid_name',
    `the ${what} '${value}' is not a Kubernetes name: lower-case letters, digits and '-', at most 63, starting and ending with a letter or digit`,
  );
}

async function refuseForeignFile(path: string): Promise<void> {
  const text = await readFile(path, 'utf8').catch(() => undefined);
  if (text === undefined || text.split('\n', 1)[0]?.includes(WRITTEN_BY_ACTORKIT)) return;
  throw new CliError(
    'refused',
    'would_overwrite',
    `${path} exists and actorkit did not write it; choose another folder for the manifests (nothing was written)`,
  );
}
