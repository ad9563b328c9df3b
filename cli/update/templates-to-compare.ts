import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { gt } from 'semver';
import { CliError } from '../cli-error.js';
import type { CliIo } from '../cli-io.js';
import { ownPackage } from '../package-root.js';
import type { AnswersRecord } from '../render/answers-file.js';
import { git } from '../render/git.js';
import { highestReleaseTag } from '../render/release-tag.js';
import { bundledTemplateSource, fetchTemplateSource, type TemplateSource } from '../render/template-source.js';
import { existsSync } from 'node:fs';
import { vendoredActorkit } from '../render/actorkit-dependency.js';
import { fetchBundledTemplate, templateFromTarball, type FetchedBundledTemplate } from './fetch-bundled-template.js';
import type { TemplateVersion } from './template-version.js';

/** Where and how the two templates are fetched. */
export interface TemplatesToCompareOptions {
  /** `--ref`: the target of a repository or `--local` source. */
  readonly ref: string | undefined;
  /** The actor folder (npm runs there, so its `.npmrc` counts). */
  readonly actorDir: string;
  /** An empty folder for checkouts and downloads; the caller removes it. */
  readonly workDir: string;
  readonly io: CliIo;
  readonly progress: (line: string) => void;
  readonly warnings: string[];
}

/**
 * Refuses, before anything is fetched, an update the answers file cannot support: `--ref` for the
 * bundled template (it follows the installed actorkit), or a repository source without a commit.
 * @param record the actor's answers file.
 * @param ref the `--ref` option, if given.
 */
export function refuseUnupdatable(record: AnswersRecord, ref: string | undefined): void {
  if (record.source === 'bundled' && ref !== undefined) throw refBundledRef(ref);
  if (record.source !== 'bundled' && record.commit === null) throw notUpdatable(record);
}

/**
 * The two templates an update renders: the one `.actorkit-answers.yml` records and the target.
 * For a repository or `--local` checkout, the recorded commit and `--ref` (else the highest
 * release tag); for the bundled template, the one bundled with the recorded actorkit version
 * (`npm pack` from the registry, unless it is the running version) and the running actorkit's.
 * @param record the actor's answers file, already checked by {@link refuseUnupdatable}.
 * @param options where to fetch, the flags, and where progress lines and warnings go.
 */
export function templatesToCompare(
  record: AnswersRecord,
  options: TemplatesToCompareOptions,
): Promise<{ old: TemplateAt; target: TemplateAt }> {
  const { ref, actorDir, workDir, io, progress, warnings } = options;
  return record.source === 'bundled'
    ? bundledTemplates(record, actorDir, workDir, io, progress, warnings)
    : repositoryTemplates(record, ref, workDir, io, progress);
}

/** A template an update renders: its folder, the package root its `Dockerfile.template` comes from, and its version. */
export interface TemplateAt {
  readonly dir: string;
  readonly packageRoot: string;
  readonly version: TemplateVersion;
  /** What the answers file records for it. */
  readonly source: Pick<TemplateSource, 'kind' | 'location' | 'ref' | 'commit'>;
}

/** The recorded commit and the target (`--ref`, else the highest release tag) of a repository or `--local` checkout. */
async function repositoryTemplates(
  record: AnswersRecord,
  ref: string | undefined,
  workDir: string,
  io: CliIo,
  progress: (line: string) => void,
): Promise<{ old: TemplateAt; target: TemplateAt }> {
  progress(`fetching the template ${record.location}`);
  const oldSource = await fetchAt(record, record.commit ?? undefined, join(workDir, 'old'), io);
  const newSource = await fetchAt(record, ref ?? (await defaultTarget(record, io)), join(workDir, 'new'), io);
  const packageRoot = ownPackage().root;
  return {
    old: { dir: oldSource.dir, packageRoot, version: { ref: record.ref, commit: record.commit }, source: oldSource },
    target: {
      dir: newSource.dir,
      packageRoot,
      version: { ref: newSource.ref, commit: newSource.commit },
      source: { ...newSource, location: record.location },
    },
  };
}

/**
 * The template bundled with the actorkit version the answers file records (unless it is the running
 * one: from the tarball the actor vendors, else from the npm registry) and the one bundled with the
 * running actorkit, the target.
 */
async function bundledTemplates(
  record: AnswersRecord,
  actorDir: string,
  workDir: string,
  io: CliIo,
  progress: (line: string) => void,
  warnings: string[],
): Promise<{ old: TemplateAt; target: TemplateAt }> {
  const own = ownPackage();
  const current = bundledTemplateSource();
  const target: TemplateAt = {
    dir: current.dir,
    packageRoot: own.root,
    version: { ref: null, commit: null, actorkit: own.version },
    source: current,
  };
  const recorded = record.actorkit_version;
  if (recorded === own.version) return { old: target, target };
  const vendored = vendoredActorkit(record.rendered_with?.actorkit_dependency);
  const fetched = await recordedBundledTemplate(record, vendored, actorDir, join(workDir, 'old'), io, progress);
  if (gt(recorded, own.version)) {
    warnings.push(
      `this actor was rendered by actorkit ${recorded}, newer than the installed ${own.version}: the update takes it back to the older template`,
    );
  }
  const version = { ref: null, commit: null, actorkit: recorded };
  return {
    old: {
      dir: fetched.templateDir,
      packageRoot: fetched.packageRoot,
      version,
      source: { kind: 'bundled', location: record.location, ref: null, commit: null },
    },
    target,
  };
}

/**
 * The template bundled with the actorkit that rendered the actor: from the tarball vendored in the
 * actor when its dependency names one (never from a registry, which may not have that package, or
 * have another package of that name), else from the npm registry.
 */
async function recordedBundledTemplate(
  record: AnswersRecord,
  vendored: { readonly path: string; readonly version: string } | undefined,
  actorDir: string,
  workDir: string,
  io: CliIo,
  progress: (line: string) => void,
): Promise<FetchedBundledTemplate> {
  if (vendored === undefined) {
    progress(`fetching the template of actorkit@${record.actorkit_version} from the npm registry`);
    return fetchBundledTemplate(record.actorkit_version, workDir, { env: io.env, cwd: actorDir });
  }
  const tarball = join(actorDir, vendored.path);
  if (!existsSync(tarball)) {
    throw new CliError(
      'failed',
      'vendored_actorkit_missing',
      `this actor depends on ${vendored.path}, which is missing: its template cannot be rendered again to compare. ` +
        `Restore it (e.g. \`git checkout -- ${vendored.path}\`); update never fetches a vendored actorkit from a registry`,
    );
  }
  progress(`reading the template of actorkit@${vendored.version} from ${vendored.path}`);
  return templateFromTarball(tarball, workDir, vendored.path);
}

/** The template as recorded, at a ref: a local checkout or a repository, cloned into `workDir`. */
async function fetchAt(
  record: AnswersRecord,
  ref: string | undefined,
  workDir: string,
  io: CliIo,
): Promise<TemplateSource> {
  await mkdir(workDir, { recursive: true });
  return record.source === 'local'
    ? fetchTemplateSource({ local: record.location, ref, workDir, io })
    : fetchTemplateSource({ repository: record.location, ref, workDir, io });
}

/**
 * The target when `--ref` is not given: for a repository `undefined` (the source picks its highest
 * release tag, as `new` does); for a local checkout its highest release tag, else its HEAD.
 */
async function defaultTarget(record: AnswersRecord, io: CliIo): Promise<string | undefined> {
  if (record.source !== 'local') return undefined;
  const tags = await git(['-C', resolve(io.cwd, record.location), 'tag', '--list'], io.env).catch(() => '');
  return highestReleaseTag(tags.split('\n'));
}

function notUpdatable(record: AnswersRecord): CliError {
  return new CliError(
    'refused',
    'not_updatable',
    `this actor was rendered from ${record.location}, but its .actorkit-answers.yml records no commit to compare with; ` +
      'render it again with `actorkit new`, or add the commit it was rendered from as `commit:`',
  );
}

function refBundledRef(ref: string): CliError {
  return new CliError(
    'refused',
    'ref_with_bundled_template',
    `--ref ${ref} does not apply: this actor was rendered from the template bundled with actorkit, which follows the installed actorkit; ` +
      'install the actorkit version whose template you want (npm install actorkit@<version>), then run update without --ref',
  );
}
