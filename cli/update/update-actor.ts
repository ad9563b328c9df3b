import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { type Logger, silentLogger } from '../../src/index.js';
import { CliError, toCliFailure, type CliFailure } from '../cli-error.js';
import { resolveCliIo, type CliIo } from '../cli-io.js';
import { actorkitPackageAt, ownPackage } from '../package-root.js';
import { createLinePrompter } from '../prompt/line-prompter.js';
import {
  actorkitDependency,
  dependencyContext,
  templateBuiltins,
  vendoredActorkit,
} from '../render/actorkit-dependency.js';
import { ANSWERS_FILE, formatAnswersFile, readAnswersFile, type AnswersRecord } from '../render/answers-file.js';
import { parseDataPairs } from '../render/data-pairs.js';
import { openTemplate, planTemplate, renderTemplateInto, type OpenedTemplate } from '../render/open-template.js';
import { vendorActorkit } from '../render/pack-actorkit.js';
import { resolveAnswers, type ResolvedAnswers } from '../render/resolve-answers.js';
import type { ActorProblem } from '../validate/actor-problem.js';
import { validateActorDir } from '../validate/validate-actor-dir.js';
import { ActorLinks } from './actor-links.js';
import { applyUpdate } from './apply-update.js';
import { planUpdate, type UpdatePlan } from './plan-update.js';
import { refuseUnupdatable, templatesToCompare } from './templates-to-compare.js';
import { confirmTemplateTrust, templatesNeedingTrust } from './template-trust.js';
import { templateLabel, versionLabel, type TemplateVersion } from './template-version.js';
import { gitOrUndefined } from '../render/git.js';

/** The inputs of `actorkit update`. */
export interface UpdateActorOptions {
  /** The actor folder, relative to `io.cwd`; default `.`. */
  readonly actorDir?: string;
  /** `--ref`: the template tag, branch or SHA to update to; default the highest release tag. */
  readonly ref?: string;
  /** `--data KEY=VALUE` changes to the recorded answers, as typed. */
  readonly data?: readonly string[];
  /** `--defaults`: questions new in the target take their defaults. */
  readonly defaults?: boolean;
  /** `--dry-run`: compute and return the plan, write nothing. */
  readonly dryRun?: boolean;
  /** `--force`: update even when the actor's git working tree has uncommitted changes. */
  readonly force?: boolean;
  /** `--trust`: render a template the answers file names without asking (see `templatesNeedingTrust`). */
  readonly trust?: boolean;
  readonly io?: Partial<CliIo>;
  readonly logger?: Logger;
}

/** What `actorkit update` did (or, with `dryRun`, would do). */
export interface UpdateActorReport {
  /** `ok`: clean (or a dry run); `failed` with `merge_conflicts` or `validation_failed`. */
  readonly status: 'ok' | 'failed';
  readonly code?: 'merge_conflicts' | 'validation_failed';
  readonly message?: string;
  readonly actorDir: string;
  readonly dryRun: boolean;
  readonly from: TemplateVersion;
  readonly to: TemplateVersion;
  /** Questions the target asks that the recorded template did not. */
  readonly newQuestions: readonly string[];
  /** The answers now recorded in `.actorkit-answers.yml`. */
  readonly answers: Record<string, unknown>;
  readonly plan: UpdatePlan;
  /** The `validate --write` run after a clean update; `null` on a dry run, with conflicts, or for a folder without `src/actor.ts`. */
  readonly validation: { readonly status: 'ok' | 'failed'; readonly problems: readonly ActorProblem[] } | null;
  readonly warnings: readonly string[];
}

/** The result of {@link updateActor}. */
export type UpdateActorResult = UpdateActorReport | (CliFailure & { readonly warnings: readonly string[] });

/** Paths an update never merges: it rewrites the answers file and re-emits the configuration. */
const NEVER_MERGED = new Set([ANSWERS_FILE, 'src/platform/config.json']);

/**
 * Brings an actor up to a newer template (`actorkit update`), keeping the author's changes: renders
 * the template at the commit `.actorkit-answers.yml` records (for the bundled template: the one
 * bundled with the recorded actorkit version, fetched with `npm pack`) and at the target (the
 * bundled template of the running actorkit) with the recorded
 * answers (plus `--data` changes, and new questions answered), merges the change between the two
 * renders into each of the actor's files three ways, then writes the new answers file, re-emits
 * `src/platform/config.json` and validates. Refuses a dirty git working tree unless `force`, a
 * template the actor folder chose unless trusted (`trust`, or a yes at a terminal), and any
 * symbolic link on a path it would touch; every refusal comes before the first write.
 * Never throws: refusals come back as result objects.
 * @param options the actor folder and the `update` flags.
 * @example
 * const result = await updateActor({ actorDir: 'weather', defaults: true });
 * if ('plan' in result) console.log(result.plan.conflicted);
 */
export async function updateActor(options: UpdateActorOptions = {}): Promise<UpdateActorResult> {
  const io = resolveCliIo(options.io);
  const logger = options.logger ?? silentLogger;
  const warnings: string[] = [];
  const progress = (line: string) => io.stderr.write(`${line}\n`);
  const workDir = await mkdtemp(join(tmpdir(), 'actorkit-update-'));
  try {
    const actorDir = resolve(io.cwd, options.actorDir ?? '.');
    const data = parseDataPairs(options.data ?? []);
    const answersLink = new ActorLinks(actorDir);
    answersLink.passable(ANSWERS_FILE);
    answersLink.refuseAny();
    const record = await readAnswersFile(actorDir);
    refuseUnupdatable(record, options.ref);
    if (!options.force && !options.dryRun) await refuseDirtyTree(actorDir, io.env, warnings);
    await confirmTemplateTrust(templatesNeedingTrust(record, io), { trust: options.trust === true, io, progress });

    const { old, target } = await templatesToCompare(record, {
      ref: options.ref,
      actorDir,
      workDir,
      io,
      progress,
      warnings,
    });
    const [oldTemplate, newTemplate] = await Promise.all([openTemplate(old.dir), openTemplate(target.dir)]);
    const { version: from } = old;
    const { version: to } = target;

    const oldQuestions = new Set(oldTemplate.config.questions.map((question) => question.name));
    const newQuestions = newTemplate.config.questions
      .map((question) => question.name)
      .filter((name) => !oldQuestions.has(name));
    const targetPhrase = to.actorkit === undefined ? `the template at ${versionLabel(to)}` : `the ${versionLabel(to)}`;
    const newAnswers = await answerTarget(newTemplate, record, data, newQuestions, options, io, warnings, targetPhrase);
    Object.assign(newAnswers.context, dependencyContext(actorkitDependency(ownPackage(), actorDir)));
    const oldAnswers = await answerRecorded(oldTemplate, record, newAnswers, old.packageRoot);
    Object.assign(
      oldAnswers.context,
      dependencyContext(record.rendered_with?.actorkit_dependency ?? String(newAnswers.context.actorkit_dependency)),
    );

    progress(
      `rendering the recorded ${from.actorkit === undefined ? 'template ' : ''}${versionLabel(from)} and the target ${versionLabel(to)}`,
    );
    const oldRender = await renderInto(oldTemplate, oldAnswers.context, join(workDir, 'old-render'), old.packageRoot);
    await keepVendoredActorkit(actorDir, oldRender, String(oldAnswers.context.actorkit_dependency));
    const newRender = await renderInto(
      newTemplate,
      newAnswers.context,
      join(workDir, 'new-render'),
      target.packageRoot,
    );
    const vendored = await vendorActorkit(
      newRender.dir,
      String(newAnswers.context.actorkit_dependency),
      ownPackage(),
      io,
      progress,
    );
    if (vendored !== undefined) newRender.files.push(vendored);

    progress(`merging ${new Set([...oldRender.files, ...newRender.files]).size} template files into ${actorDir}`);
    const labels = { current: 'yours', base: templateLabel(from), other: templateLabel(to) };
    const { plan, writes } = await planUpdate({
      actorDir,
      oldRender,
      newRender,
      labels,
      skip: NEVER_MERGED,
      env: io.env,
    });
    const report = { actorDir, from, to, newQuestions, answers: newAnswers.recorded, plan, warnings };
    logger.info('actor_update_planned', {
      actor_dir: actorDir,
      from: versionLabel(from),
      to: versionLabel(to),
      dry_run: options.dryRun === true,
      writes: writes.length,
    });
    if (options.dryRun) return { status: 'ok', dryRun: true, validation: null, ...report };

    const answersFile = formatAnswersFile(target.source, newAnswers.recorded, newAnswers.context);
    await applyUpdate(actorDir, [...writes, { kind: 'write', path: ANSWERS_FILE, text: answersFile }]);
    if (plan.conflicted.length > 0) {
      const message = `${plan.conflicted.length} file${plan.conflicted.length === 1 ? ' has' : 's have'} conflicts: ${plan.conflicted.join(', ')}`;
      return { status: 'failed', code: 'merge_conflicts', message, dryRun: false, validation: null, ...report };
    }
    if (!existsSync(join(actorDir, 'src', 'actor.ts')))
      return { status: 'ok', dryRun: false, validation: null, ...report };
    progress('validating: emitting src/platform/config.json and checking it');
    const validated = await validateActorDir(actorDir, { write: true, io, logger });
    if (!('problems' in validated)) throw new CliError(validated.status, validated.code, validated.message);
    const validation = { status: validated.status, problems: validated.problems };
    if (validated.status === 'ok') return { status: 'ok', dryRun: false, validation, ...report };
    const message = `the updated actor does not validate: ${validated.problems.length} problem${validated.problems.length === 1 ? '' : 's'}`;
    return { status: 'failed', code: 'validation_failed', message, dryRun: false, validation, ...report };
  } catch (error) {
    const failure = toCliFailure(error);
    logger.warn('actor_update_stopped', { status: failure.status, code: failure.code });
    return { ...failure, warnings };
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

async function refuseDirtyTree(actorDir: string, env: CliIo['env'], warnings: string[]): Promise<void> {
  const state = await workingTreeState(actorDir, env);
  if (!state.tracked) {
    warnings.push(
      `${actorDir} is not in a git working tree: nothing can undo this update (commit the actor first to review it)`,
    );
    return;
  }
  if (state.changes.length === 0) return;
  const shown =
    state.changes.slice(0, 10).join('; ') +
    (state.changes.length > 10 ? `; and ${state.changes.length - 10} more` : '');
  throw new CliError(
    'refused',
    'dirty_working_tree',
    `${actorDir} has uncommitted changes (${shown}); commit or stash them first so the update can be reviewed and undone, or pass --force`,
  );
}

/**
 * Answers the target template: the recorded answers it still asks, `--data` over them, then new
 * questions by default, prompt or refusal (the refusal names the new questions).
 */
async function answerTarget(
  template: OpenedTemplate,
  record: AnswersRecord,
  data: Readonly<Record<string, string>>,
  newQuestions: readonly string[],
  options: UpdateActorOptions,
  io: CliIo,
  warnings: string[],
  targetPhrase: string,
): Promise<ResolvedAnswers> {
  const asked = new Set(template.config.questions.map((question) => question.name));
  const recorded = recordedAsData(record, asked);
  for (const name of Object.keys(record.answers)) {
    if (!asked.has(name)) warnings.push(`${targetPhrase} no longer asks '${name}'; its recorded answer is dropped`);
  }
  const prompter = io.interactive ? createLinePrompter(io) : undefined;
  try {
    return await resolveAnswers(template.config.questions, {
      actorName: String(record.answers.actor_name ?? ''),
      data: { ...recorded, ...data },
      useDefaults: options.defaults === true,
      engine: template.engine,
      builtins: templateBuiltins(ownPackage()),
      ...(prompter ? { prompter } : {}),
    });
  } catch (error) {
    if (
      error instanceof CliError &&
      (error.code === 'no_terminal' || error.code === 'missing_answers') &&
      newQuestions.length > 0
    ) {
      const which = `${targetPhrase} asks ${newQuestions.length === 1 ? 'a new question' : 'new questions'}: ${newQuestions.join(', ')}`;
      throw new CliError(error.status, error.code, `${which}; ${error.message}`);
    }
    throw error;
  } finally {
    prompter?.close();
  }
}

/**
 * Answers the recorded template exactly as it was rendered; secrets (never recorded) come from the
 * target's answers, the peer ranges from the actorkit package that bundles (or renders) it.
 */
async function answerRecorded(
  template: OpenedTemplate,
  record: AnswersRecord,
  target: ResolvedAnswers,
  packageRoot: string,
): Promise<ResolvedAnswers> {
  const asked = new Set(template.config.questions.map((question) => question.name));
  const secrets: Record<string, string> = {};
  for (const question of template.config.questions) {
    if (question.secret && question.name in target.context)
      secrets[question.name] = String(target.context[question.name]);
  }
  return resolveAnswers(template.config.questions, {
    actorName: String(record.answers.actor_name ?? ''),
    data: { ...recordedAsData(record, asked), ...secrets },
    useDefaults: true,
    engine: template.engine,
    builtins: templateBuiltins(actorkitPackageAt(packageRoot), record.actorkit_version),
  });
}

/** The recorded answers a template still asks, as `--data` text (`actor_name` apart). */
function recordedAsData(record: AnswersRecord, asked: ReadonlySet<string>): Record<string, string> {
  const data: Record<string, string> = {};
  for (const [name, value] of Object.entries(record.answers)) {
    if (name !== 'actor_name' && asked.has(name) && value !== null && value !== undefined) data[name] = String(value);
  }
  return data;
}

/**
 * Puts the actor's own vendored actorkit tarball into the render of the recorded template, as
 * `new` put it there: the merge then replaces (or deletes) it only as the target render does, and
 * never reports a change the actor did not make.
 */
async function keepVendoredActorkit(
  actorDir: string,
  render: { dir: string; files: string[] },
  dependency: string,
): Promise<void> {
  const vendored = vendoredActorkit(dependency);
  if (vendored === undefined || !existsSync(join(actorDir, vendored.path))) return;
  await mkdir(dirname(join(render.dir, vendored.path)), { recursive: true });
  await copyFile(join(actorDir, vendored.path), join(render.dir, vendored.path));
  render.files.push(vendored.path);
}

async function renderInto(
  template: OpenedTemplate,
  context: Record<string, unknown>,
  dir: string,
  packageRoot: string,
): Promise<{ dir: string; files: string[] }> {
  const plan = await planTemplate(template, context);
  await mkdir(dir, { recursive: true });
  return { dir, files: await renderTemplateInto(template, plan, context, dir, packageRoot) };
}

/** What git says about the actor folder before an update. */
type WorkingTreeState = { readonly tracked: false } | { readonly tracked: true; readonly changes: readonly string[] };

/**
 * Lists the uncommitted changes under a folder (`git status --porcelain -- .`), or says it is not
 * inside a git working tree (or git is missing).
 * @param dir the actor folder.
 * @param env the environment git runs with.
 */
async function workingTreeState(
  dir: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<WorkingTreeState> {
  const inside = await gitOrUndefined(['-C', dir, 'rev-parse', '--is-inside-work-tree'], env);
  if (inside !== 'true') return { tracked: false };
  const status = await gitOrUndefined(['-C', dir, 'status', '--porcelain', '--untracked-files=all', '--', '.'], env);
  return { tracked: true, changes: (status ?? '').split('\n').filter((line) => line !== '') };
}
