import { chmod, mkdir, mkdtemp, rm, writeFile, readdir, rename, rmdir, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { type Logger, silentLogger } from '../../src/index.js';
import { CliError, toCliFailure, type CliFailure } from '../cli-error.js';
import { resolveCliIo, type CliIo } from '../cli-io.js';
import { ownPackage } from '../package-root.js';
import { createLinePrompter } from '../prompt/line-prompter.js';
import { actorkitDependency, dependencyContext, templateBuiltins } from './actorkit-dependency.js';
import { ANSWERS_FILE, formatAnswersFile } from './answers-file.js';
import { parseDataPairs } from './data-pairs.js';
import { emitRenderedConfig } from './emit-rendered-config.js';
import { optionRoutesText, type OptionRoute } from '../route-list/index.js';
import { resolveAnswers } from './resolve-answers.js';
import { openTemplate, planTemplate, renderTemplateInto } from './open-template.js';
import { fetchTemplateSource, type TemplateSource } from './template-source.js';
import { vendorActorkit } from './pack-actorkit.js';
import type { TemplateEngine } from './template-engine.js';

/** The inputs of `actorkit new`. */
export interface RenderActorOptions {
  readonly actorName: string;
  /** Where to render; relative paths are taken from `io.cwd`. Default: the actor's slug (`./my-bot`). */
  readonly targetDir?: string;
  /** `--local <path>`: render this git checkout at HEAD. */
  readonly local?: string;
  /** `--ref <git_ref>`: a tag, branch or SHA of the template repository. */
  readonly ref?: string;
  /** `--offline`: render the bundled template without trying the template repository. */
  readonly offline?: boolean;
  /** `--data KEY=VALUE` pairs, as typed. */
  readonly data?: readonly string[];
  /** `--defaults`: accept the template defaults. */
  readonly defaults?: boolean;
  readonly io?: Partial<CliIo>;
  readonly logger?: Logger;
}

/** What a successful `actorkit new` rendered, and where. */
export interface RenderActorSuccess {
  readonly status: 'ok';
  readonly actorName: string;
  /** Absolute path of the rendered actor. */
  readonly targetDir: string;
  readonly source: Omit<TemplateSource, 'dir' | 'warnings'>;
  /** The answers recorded in `.actorkit-answers.yml` (no secrets). */
  readonly answers: Record<string, unknown>;
  /** Rendered files, relative to `targetDir`, sorted. */
  readonly files: readonly string[];
  readonly warnings: readonly string[];
  /**
   * What to do next, as the template words it (`_message_after_new`): the routes the options
   * mount, the variables they need, then `cd <dir> && npm install && npm start`, a request to
   * try and `actorkit validate .`; for a template without one, `Next: cd <dir> && actorkit validate .`.
   */
  readonly closingMessage: string;
}

/** The result of {@link renderActor}. */
export type RenderActorResult = RenderActorSuccess | (CliFailure & { readonly warnings: readonly string[] });

/**
 * Renders a new actor from a template (`actorkit new`): fetches the template, answers its
 * questions, renders into a staging folder beside the target and moves it into place, then writes
 * `.actorkit-answers.yml`. Never throws: refusals and failures come back as result objects, and
 * on any of them nothing is left in the target.
 * @param options the actor name, the target folder and the `new` flags.
 * @example
 * const result = await renderActor({ actorName: 'weather', targetDir: 'weather', defaults: true });
 * if (result.status === 'ok') console.log(result.closingMessage);
 */
export async function renderActor(options: RenderActorOptions): Promise<RenderActorResult> {
  const io = resolveCliIo(options.io);
  const logger = options.logger ?? silentLogger;
  const warnings: string[] = [];
  const workDir = await mkdtemp(join(tmpdir(), 'actorkit-template-'));
  try {
    const data = parseDataPairs(options.data ?? []);
    if (options.targetDir !== undefined) await assertEmptyTarget(resolve(io.cwd, options.targetDir));
    const source = await fetchTemplateSource({
      local: options.local,
      ref: options.ref,
      offline: options.offline === true,
      workDir,
      io,
    });
    warnings.push(...source.warnings);
    logger.info('template_source_resolved', {
      kind: source.kind,
      location: source.location,
      ref: source.ref,
      commit: source.commit,
    });
    const template = await openTemplate(source.dir);
    const { config, engine } = template;
    const prompter = io.interactive ? createLinePrompter(io) : undefined;
    const answers = await resolveAnswers(config.questions, {
      actorName: options.actorName,
      data,
      useDefaults: options.defaults === true,
      engine,
      builtins: templateBuiltins(ownPackage()),
      ...(prompter ? { prompter } : {}),
    }).finally(() => prompter?.close());
    const targetDir = resolve(io.cwd, options.targetDir ?? slugOf(answers.context));
    if (options.targetDir === undefined) await assertEmptyTarget(targetDir);
    Object.assign(answers.context, dependencyContext(actorkitDependency(ownPackage(), targetDir)));
    const plan = await planTemplate(template, answers.context);
    await mkdir(dirname(targetDir), { recursive: true });
    const staging = await mkdtemp(join(dirname(targetDir), `.${basename(targetDir)}.actorkit-`));
    const targets: string[] = [];
    let routes: readonly OptionRoute[] = [];
    try {
      await chmod(staging, 0o755);
      targets.push(...(await renderTemplateInto(template, plan, answers.context, staging, ownPackage().root)));
      const progress = (line: string) => io.stderr.write(`${line}\n`);
      const vendored = await vendorActorkit(
        staging,
        String(answers.context.actorkit_dependency),
        ownPackage(),
        io,
        progress,
      );
      if (vendored !== undefined) targets.push(vendored);
      const emitted = await emitRenderedConfig(staging, ownPackage().root);
      if (emitted !== undefined) targets.push(emitted.file);
      routes = emitted?.routes ?? [];
      await writeFile(join(staging, ANSWERS_FILE), formatAnswersFile(source, answers.recorded, answers.context));
      await moveIntoPlace(staging, targetDir);
    } finally {
      await rm(staging, { recursive: true, force: true });
    }
    const files = [...new Set([...targets, ANSWERS_FILE])].sort();
    logger.info('actor_rendered', { target: targetDir, files: files.length });
    const fromCwd = relative(io.cwd, targetDir);
    const shown = fromCwd.startsWith('..') || isAbsolute(fromCwd) ? targetDir : fromCwd || '.';
    return {
      status: 'ok',
      actorName: String(answers.context.actor_name),
      targetDir,
      source: { kind: source.kind, location: source.location, ref: source.ref, commit: source.commit },
      answers: answers.recorded,
      files,
      warnings,
      closingMessage: closingMessage(
        config.messageAfterNew,
        engine,
        { ...answers.context, option_routes: optionRoutesText(routes) },
        shown,
      ),
    };
  } catch (error) {
    const failure = toCliFailure(error);
    logger.warn('actor_render_stopped', { status: failure.status, code: failure.code });
    return { ...failure, warnings };
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

/** The folder name `new` renders into when none is given: the `actor_slug` answer, else the name in kebab-case. */
function slugOf(context: Record<string, unknown>): string {
  if (typeof context.actor_slug === 'string' && context.actor_slug !== '') return context.actor_slug;
  const slug = String(context.actor_name)
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  if (slug === '') throw new CliError('refused', 'bad_usage', 'the actor name gives no folder name: pass TARGET_DIR');
  return slug;
}

/**
 * What `new` prints after rendering: the template's `_message_after_new` rendered with the
 * answers and `target_dir` (the new folder as the user would type it, shell-quoted), else the
 * step every actor shares, `cd <dir> && actorkit validate .`. Surrounding blank lines are trimmed.
 * @param template the template's `_message_after_new`, if it has one.
 * @param engine the template's engine (so the message may `{% include %}` the template's partials).
 * @param context the answers and built-in variables.
 * @param shownDir the new folder, relative to the working folder when it is below it.
 */
function closingMessage(
  template: string | undefined,
  engine: TemplateEngine,
  context: Record<string, unknown>,
  shownDir: string,
): string {
  const targetDir = shellQuote(shownDir);
  if (template === undefined) return `Next: cd ${targetDir} && actorkit validate .`;
  return engine
    .render(template, { ...context, target_dir: targetDir }, 'template.yml: _message_after_new')
    .replace(/^\s*\n|\s+$/g, '');
}

/**
 * Quotes a path for a POSIX shell when it holds anything but safe characters.
 * @param path the path to quote.
 */
function shellQuote(path: string): string {
  return /^[\w@%+=:,./-]+$/.test(path) ? path : `'${path.replace(/'/g, `'\\''`)}'`;
}

/**
 * Refuses a target that exists and is not an empty folder (codes `target_not_empty`,
 * `target_not_directory`); a missing target is fine.
 * @param targetDir absolute path of the folder `new` renders into.
 */
async function assertEmptyTarget(targetDir: string): Promise<void> {
  const stats = await stat(targetDir).catch(() => undefined);
  if (stats === undefined) return;
  if (!stats.isDirectory())
    throw new CliError('refused', 'target_not_directory', `${targetDir} exists and is not a folder`);
  const entries = await readdir(targetDir);
  if (entries.length > 0) {
    throw new CliError(
      'refused',
      'target_not_empty',
      `${targetDir} is not empty (${entries.length} entries); choose a new or empty folder`,
    );
  }
}

/**
 * Moves a finished staging folder into place: renames it to the target when the target does not
 * exist, else moves its entries into the (empty) target and removes the staging folder.
 * @param stagingDir the rendered output, on the same file system as the target.
 * @param targetDir the final folder.
 */
async function moveIntoPlace(stagingDir: string, targetDir: string): Promise<void> {
  await assertEmptyTarget(targetDir);
  const exists = await stat(targetDir).then(
    () => true,
    () => false,
  );
  if (!exists) return rename(stagingDir, targetDir);
  for (const entry of await readdir(stagingDir)) await rename(join(stagingDir, entry), join(targetDir, entry));
  await rmdir(stagingDir);
}
