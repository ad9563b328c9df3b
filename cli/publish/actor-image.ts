import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CliError } from '../cli-error.js';
import { checkImageRepository, checkImageTag, refuseMovingTag } from './image-reference.js';

/** What `publish` and the Kubernetes manifests read of an actor's `package.json`. */
export interface ActorPackage {
  /** The whole parsed `package.json`. */
  readonly json: Record<string, unknown>;
  readonly version?: string;
  /** `actorkit.deployment.image_repo`. */
  readonly imageRepo?: string;
}

/**
 * Reads an actor's `package.json`; an unreadable or malformed one is refused (code `not_an_actor`).
 * @param root absolute path of the actor folder
 */
export async function readActorPackage(root: string): Promise<ActorPackage> {
  let json: unknown;
  try {
    json = JSON.parse(await readFile(join(root, 'package.json'), 'utf8'));
  } catch (error) {
    throw new CliError(
      'refused',
      'not_an_actor',
      `${root} is not an actor folder: cannot read package.json (${(error as Error).message})`,
    );
  }
  const record = (typeof json === 'object' && json !== null ? json : {}) as {
    version?: unknown;
    actorkit?: { deployment?: { image_repo?: unknown } };
  };
  return {
    json: record as Record<string, unknown>,
    ...(typeof record.version === 'string' && record.version !== '' ? { version: record.version } : {}),
    ...(typeof record.actorkit?.deployment?.image_repo === 'string'
      ? { imageRepo: record.actorkit.deployment.image_repo }
      : {}),
  };
}

/**
 * The image repository of an actor: `chosen` (`--repo`) or else `actorkit.deployment.image_repo`,
 * checked against the OCI reference grammar; none is refused with code `no_image_repo`.
 * @param manifest from {@link readActorPackage}
 * @param chosen the repository given on the command line, if any
 */
export function actorImageRepository(manifest: ActorPackage, chosen?: string): string {
  return checkImageRepository(
    chosen ??
      manifest.imageRepo ??
      refuse('no_image_repo', 'no --repo given and package.json has no actorkit.deployment.image_repo'),
  );
}

/**
 * The image tag of an actor: `chosen` (`--tag`) or else `v<version>`, checked, `latest` refused;
 * neither is refused with code `no_version`.
 * @param chosen the tag given on the command line, if any
 * @param version the version to tag with (`package.json`'s, or the one `--bump` raises it to)
 */
export function actorImageTag(chosen: string | undefined, version: string | undefined): string {
  return refuseMovingTag(
    checkImageTag(
      chosen ?? (version ? `v${version}` : refuse('no_version', 'no --tag given and package.json has no version')),
    ),
  );
}

function refuse(code: string, message: string): never {
  throw new CliError('refused', code, message);
}
