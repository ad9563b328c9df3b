import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CliError } from '../cli-error.js';
import type { CliIo } from '../cli-io.js';
import { ownPackage } from '../package-root.js';
import { git, gitOrUndefined } from './git.js';
import { highestReleaseTag } from './release-tag.js';

/** Where a template came from: a local checkout, a template repository, or the bundled copy. */
export type TemplateSourceKind = 'local' | 'repository' | 'bundled';

/** A template ready to render, and the facts `.actorkit-answers.yml` records about it. */
export interface TemplateSource {
  readonly kind: TemplateSourceKind;
  /** The path or URL the template came from. */
  readonly location: string;
  /** The tag, branch, SHA or `HEAD` rendered; `null` for the bundled template. */
  readonly ref: string | null;
  /** The commit SHA the ref resolved to; `null` for the bundled template. */
  readonly commit: string | null;
  /** The folder holding template.yml (a fresh checkout, or the bundled folder). */
  readonly dir: string;
  readonly warnings: readonly string[];
}

/** Which template to fetch, following the order of DESIGN §8. */
export interface TemplateSourceOptions {
  /** `--local <path>`: a git checkout, rendered at HEAD (or at `ref`). */
  readonly local?: string;
  /** `--ref <git_ref>`: a tag, branch or SHA of the template repository. */
  readonly ref?: string;
  /** The template repository (git URL or path), instead of the one in `ACTORKIT_TEMPLATE_REPO` (`update` passes the recorded one). */
  readonly repository?: string;
  /** `--offline`: render the bundled template without trying the template repository. */
  readonly offline?: boolean;
  /** An empty folder the checkout may be written to; the caller removes it. */
  readonly workDir: string;
  readonly io: Pick<CliIo, 'env' | 'cwd'>;
}

/** The environment variable naming the template repository (a git URL or path). */
export const TEMPLATE_REPO_ENV = 'ACTORKIT_TEMPLATE_REPO';

/** How long `new` waits for the template repository before it renders the bundled template instead. */
const DEFAULT_REPOSITORY_TIMEOUT_MS = 15_000;

/**
 * Fetches the template to render: `--local` (a checkout at HEAD, warning when dirty); else the
 * template repository (`repository`, else `ACTORKIT_TEMPLATE_REPO`, else actorkit's
 * `actorkit.templateRepository`) at `--ref` or at its highest release tag; else, and with
 * `--offline`, the template bundled with this package. A repository `new` picks by itself that
 * cannot be reached in 15 s, or has no release tag, gives the bundled template and a warning
 * naming it and the reason; a named `--ref` or `repository` does not fall back.
 * @param options the source flags, a work folder and the environment.
 */
export async function fetchTemplateSource(options: TemplateSourceOptions): Promise<TemplateSource> {
  const { local, ref, io } = options;
  if (ref !== undefined && (ref === '' || ref.startsWith('-'))) {
    throw new CliError('refused', 'invalid_ref', `--ref needs a tag, branch or commit SHA, got '${ref}'`);
  }
  if (local !== undefined) return fetchLocalCheckout(resolve(io.cwd, local), ref, options);
  if (options.repository) return fetchRepository(repositoryLocation(options.repository, io.cwd), ref, options);
  if (options.offline) {
    if (ref !== undefined) {
      throw new CliError(
        'refused',
        'offline_ref',
        `--ref ${ref} needs the template repository, which --offline skips: drop --offline, or pass --local <checkout>`,
      );
    }
    return bundledTemplateSource();
  }
  const repository = defaultTemplateRepository(io);
  if (repository === undefined) {
    if (ref !== undefined) {
      throw new CliError(
        'refused',
        'ref_without_repository',
        `--ref ${ref} needs a template repository: set ${TEMPLATE_REPO_ENV} to its git URL or path, or pass --local <path>`,
      );
    }
    return bundledTemplateSource();
  }
  if (ref !== undefined) return fetchRepository(repository, ref, options);
  try {
    return await fetchRepository(repository, undefined, options, DEFAULT_REPOSITORY_TIMEOUT_MS);
  } catch (error) {
    if (!(error instanceof CliError && (error.code === 'git_failed' || error.code === 'no_release_tag'))) throw error;
    const bundled = bundledTemplateSource();
    const reason = error.message.replace(`${repository} `, '').replace(/;.*$/, '');
    return {
      ...bundled,
      warnings: [`template repository ${repository} not usable (${reason}); rendered the bundled ${bundled.location}`],
    };
  }
}

async function fetchLocalCheckout(
  path: string,
  ref: string | undefined,
  options: TemplateSourceOptions,
): Promise<TemplateSource> {
  const { env } = options.io;
  if (!existsSync(path)) throw new CliError('refused', 'local_template_missing', `--local ${path} does not exist`);
  const located = await gitOrUndefined(['-C', path, 'rev-parse', '--show-toplevel', '--show-prefix'], env);
  if (located === undefined) {
    throw new CliError(
      'refused',
      'not_a_git_checkout',
      `--local ${path} is not a git checkout (run git init and commit the template)`,
    );
  }
  const [top = path, prefix = ''] = located.split('\n');
  const commit = await resolveCommit(path, ref ?? 'HEAD', env);
  if (commit === undefined) {
    throw ref === undefined
      ? new CliError('failed', 'no_commit', `--local ${path} has no commit yet; commit the template first`)
      : unknownRef(ref, path);
  }
  const warnings: string[] = [];
  if (ref === undefined && (await git(['-C', path, 'status', '--porcelain', '--', '.'], env)) !== '') {
    warnings.push(
      `${path} has uncommitted changes; rendering the last commit (HEAD ${commit.slice(0, 12)}) without them`,
    );
  }
  const clone = await cloneInto(options.workDir, top, env);
  await checkout(clone, commit, env);
  return { kind: 'local', location: path, ref: ref ?? 'HEAD', commit, dir: join(clone, prefix), warnings };
}

async function fetchRepository(
  location: string,
  ref: string | undefined,
  options: TemplateSourceOptions,
  timeoutMs = 0,
): Promise<TemplateSource> {
  const { env } = options.io;
  const clone = await cloneInto(options.workDir, location, env, timeoutMs);
  let chosen = ref;
  if (chosen === undefined) {
    const tags = (await git(['-C', clone, 'tag', '--list'], env)).split('\n');
    chosen = highestReleaseTag(tags);
    if (chosen === undefined) {
      throw new CliError(
        'failed',
        'no_release_tag',
        `${location} has no release tag (vMAJOR.MINOR.PATCH); tag a release or pass --ref <branch|tag|sha>`,
      );
    }
  }
  const commit = await resolveCommit(clone, chosen, env);
  if (commit === undefined) throw unknownRef(chosen, location);
  await checkout(clone, commit, env);
  return { kind: 'repository', location, ref: chosen, commit, dir: clone, warnings: [] };
}

/**
 * The template repository the user names in `ACTORKIT_TEMPLATE_REPO`, as `new` records it (a git
 * URL as written, a path made absolute from `io.cwd`); `undefined` when the variable is unset or blank.
 * @param io the environment and working folder of this run.
 */
function namedTemplateRepository(io: Pick<CliIo, 'env' | 'cwd'>): string | undefined {
  const named = io.env[TEMPLATE_REPO_ENV]?.trim();
  return named ? repositoryLocation(named, io.cwd) : undefined;
}

/**
 * The template repository `new` renders when neither `--local` nor `--offline` is given:
 * `ACTORKIT_TEMPLATE_REPO`, else the `actorkit.templateRepository` of actorkit's package.json;
 * `undefined` when neither names one (then `new` renders the bundled template).
 * @param io the environment and working folder of this run.
 */
export function defaultTemplateRepository(io: Pick<CliIo, 'env' | 'cwd'>): string | undefined {
  const packaged = ownPackage().templateRepository;
  return namedTemplateRepository(io) ?? (packaged === undefined ? undefined : repositoryLocation(packaged, io.cwd));
}

/** A repository as recorded: a git URL as written, a path made absolute from `cwd`. */
function repositoryLocation(repository: string, cwd: string): string {
  return isGitUrl(repository) ? repository : resolve(cwd, repository);
}

/** The folder of the template bundled with this package, `<package root>/templates/actor`. */
export function bundledTemplateDir(): string {
  return join(ownPackage().root, 'templates', 'actor');
}

/** The template bundled with this package as a source, `actorkit@<version>/templates/actor`; `failed` when the folder is missing. */
export function bundledTemplateSource(): TemplateSource {
  const dir = bundledTemplateDir();
  if (!existsSync(dir)) {
    throw new CliError(
      'failed',
      'bundled_template_missing',
      `the bundled template is missing at ${dir}; reinstall actorkit`,
    );
  }
  return {
    kind: 'bundled',
    location: `actorkit@${ownPackage().version}/templates/actor`,
    ref: null,
    commit: null,
    dir,
    warnings: [],
  };
}

type Env = Readonly<Record<string, string | undefined>>;

async function cloneInto(workDir: string, repository: string, env: Env, timeoutMs = 0): Promise<string> {
  const clone = join(workDir, 'template');
  await git(['clone', '--quiet', '--no-checkout', '--', repository, clone], env, timeoutMs);
  return clone;
}

async function checkout(clone: string, commit: string, env: Env): Promise<void> {
  await git(['-C', clone, '-c', 'advice.detachedHead=false', 'checkout', '--quiet', '--detach', commit], env);
}

/**
 * Resolves a tag, branch or SHA to a commit SHA with git's own precedence (tags before branches),
 * then as a branch of `origin` (a fresh clone has only its default branch locally).
 */
async function resolveCommit(repository: string, ref: string, env: Env): Promise<string | undefined> {
  for (const candidate of [ref, `refs/remotes/origin/${ref}`]) {
    const sha = await gitOrUndefined(
      ['-C', repository, 'rev-parse', '--verify', '--quiet', '--end-of-options', `${candidate}^{commit}`],
      env,
    );
    if (sha) return sha;
  }
  return undefined;
}

function unknownRef(ref: string, location: string): CliError {
  return new CliError('refused', 'unknown_ref', `${location} has no tag, branch or commit '${ref}'`);
}

function isGitUrl(location: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(location) || /^[^/\s]+@[^/\s]+:/.test(location);
}
