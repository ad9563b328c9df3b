import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { valid } from 'semver';
import { CliError } from '../cli-error.js';
import type { CliIo } from '../cli-io.js';
import { npmPack } from '../npm-pack.js';
import { extractTarball } from './extract-tarball.js';

/** The template bundled with one actorkit version, extracted from its package tarball. */
export interface FetchedBundledTemplate {
  /** Stands in for that version's package root: holds `templates/actor/`, `Dockerfile.template` and `package.json`. */
  readonly packageRoot: string;
  /** `<packageRoot>/templates/actor`. */
  readonly templateDir: string;
}

/** The archive paths a bundled-template render reads: the template and the package's Dockerfile recipe. */
const TEMPLATE_PREFIX = 'templates/actor/';
const DOCKERFILE_PATH = 'Dockerfile.template';

/**
 * Fetches the template bundled with `actorkit@<version>` from the npm registry the user's npm is
 * set to (`npm pack`, run in `cwd` so a project `.npmrc` and `npm_config_registry` count), and
 * extracts it with {@link templateFromTarball}. A missing npm, a version the registry does not have
 * and a tarball without the template are `failed` {@link CliError}s.
 * @param version the actorkit version an actor's answers file records.
 * @param workDir an empty folder to download and extract into; the caller removes it.
 * @param io the environment and working folder npm runs with.
 */
export async function fetchBundledTemplate(
  version: string,
  workDir: string,
  io: Pick<CliIo, 'env' | 'cwd'>,
): Promise<FetchedBundledTemplate> {
  if (valid(version) === null) {
    throw new CliError(
      'refused',
      'invalid_answers_file',
      `.actorkit-answers.yml records actorkit_version '${version}', which is not a version: cannot tell which template rendered this actor`,
    );
  }
  const downloads = join(workDir, 'download');
  await mkdir(downloads, { recursive: true });
  const packed = await npmPack(`actorkit@${version}`, downloads, io);
  return templateFromTarball(join(downloads, packed), workDir, `actorkit@${version} from the npm registry`);
}

/**
 * Extracts only `templates/actor/`, `Dockerfile.template` and `package.json` (the peer ranges the
 * template renders with) of an actorkit package tarball (one
 * fetched from a registry, or the one vendored in an actor) into `<workDir>/package`. A tarball that
 * cannot be read or holds no template is a `failed` {@link CliError} naming `label`.
 * @param tarball the `.tgz` file.
 * @param workDir an empty folder to extract into; the caller removes it.
 * @param label how messages name the tarball, e.g. `vendor/actorkit-0.1.0.tgz`.
 */
export async function templateFromTarball(
  tarball: string,
  workDir: string,
  label: string,
): Promise<FetchedBundledTemplate> {
  const packageRoot = join(workDir, 'package');
  const extracted = await extractTarball(
    tarball,
    packageRoot,
    (path) => path.startsWith(TEMPLATE_PREFIX) || path === DOCKERFILE_PATH || path === 'package.json',
  ).catch((error: unknown) => {
    if (error instanceof CliError) throw error;
    throw new CliError(
      'failed',
      'npm_pack_failed',
      `the tarball of ${label} cannot be read: ${(error as Error).message}`,
      { cause: error },
    );
  });
  const templateDir = join(packageRoot, 'templates', 'actor');
  if (!extracted.some((path) => path.startsWith(TEMPLATE_PREFIX)) || !existsSync(join(templateDir, 'template.yml'))) {
    throw new CliError(
      'failed',
      'bundled_template_missing',
      `${label} has no templates/actor/template.yml: its template cannot be rendered again`,
    );
  }
  return { packageRoot, templateDir };
}
