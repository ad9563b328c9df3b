import { existsSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { type Logger, silentLogger } from '../../src/index.js';
import { CliError, toCliFailure, type CliFailure } from '../cli-error.js';
import { resolveCliIo, type CliIo } from '../cli-io.js';
import type { ActorProblem } from './actor-problem.js';
import { loadConfigTools, type ConfigTools, type EmitOutcome } from './config-tools.js';
import { configFileProblems } from './config-file-problems.js';
import { configFileShapeProblem } from './config-file-shape.js';
import { configProblems } from './config-problems.js';
import { emitterFailureProblem, withSourceMaps } from './emitter-failure.js';

export type { ActorProblem } from './actor-problem.js';

/** Which actorkit emitted and checked the configuration. */
export interface ActorkitUsed {
  readonly origin: 'actor' | 'cli';
  readonly version: string;
  readonly root: string;
}

/** The outcome of `actorkit validate`. */
export interface ValidateActorResult {
  readonly status: 'ok' | 'failed';
  /** Absolute path of the actor folder. */
  readonly actorDir: string;
  /** Absolute path of `src/platform/config.json`. */
  readonly configPath: string;
  readonly actorkit: ActorkitUsed | null;
  /** The file on disk compared with the emitted configuration; `null` when the emitter failed. */
  readonly configState: EmitOutcome['state'] | null;
  /** Whether `write` rewrote the file. */
  readonly written: boolean;
  /** Whether `write` rewrote the route list in README.md (the routes the options add, between its markers). */
  readonly routesWritten: boolean;
  /** Every problem, in the order printed: the emitter's, then the emitted configuration's, then those only the file on disk has. */
  readonly problems: readonly ActorProblem[];
  /** The problems of the configuration the code emits (schema, tuning rules, settings defaults). */
  readonly emittedProblems: readonly ActorProblem[];
  /** The problems of `src/platform/config.json` as it is on disk, stale or not. */
  readonly fileProblems: readonly ActorProblem[];
}

/** The inputs of {@link validateActorDir}. */
export interface ValidateActorOptions {
  /** Write `src/platform/config.json` from the code before checking it, instead of only comparing. */
  readonly write?: boolean;
  readonly io?: Partial<CliIo>;
  readonly logger?: Logger;
}

const CONFIG_FILE = join('src', 'platform', 'config.json');

/**
 * Validates an actor folder (`actorkit validate`): emits the configuration from the actor's code
 * in check mode with the actor's own installed actorkit (else the CLI's own), flags a stale or
 * missing `src/platform/config.json`, then checks the emitted configuration against the platform
 * schema and the tuning rules, and the settings schema's defaults against their own fields; then
 * checks the file on disk the same way, stale or not, and reports the problems only it has. An
 * emitter failure names its real cause: a missing package, or the file and line in the actor's code.
 * A `config.json` that is a link, not a regular file or over 1 MiB is one problem, and then
 * nothing is emitted, read or written. Never throws; a folder that is not an actor is a `refused` result.
 * @param actorDir the actor's folder, relative to `io.cwd`.
 * With `write`, the file is regenerated first, and README.md's route list (between its markers)
 * after the checks, from the app the definition builds.
 * @param options `write` to regenerate the file first.
 * @example
 * const result = await validateActorDir('.');
 * for (const p of result.problems) console.log(`- [${p.rule}] ${p.pointer || '/'}: ${p.message}`);
 */
export async function validateActorDir(
  actorDir: string,
  options: ValidateActorOptions = {},
): Promise<ValidateActorResult | CliFailure> {
  const io = resolveCliIo(options.io);
  const logger = options.logger ?? silentLogger;
  const root = resolve(io.cwd, actorDir);
  const configPath = join(root, CONFIG_FILE);
  if (!existsSync(join(root, 'package.json'))) {
    return toCliFailure(new CliError('refused', 'not_an_actor', `${root} is not an actor folder (no package.json)`));
  }
  const shownDir = relative(io.cwd, root) || '.';
  const base = { actorDir: root, configPath, written: false, routesWritten: false };
  const unreadable = configFileShapeProblem(root, CONFIG_FILE);
  if (unreadable !== undefined) {
    return {
      status: 'failed',
      ...base,
      actorkit: null,
      configState: null,
      problems: [unreadable],
      emittedProblems: [],
      fileProblems: [unreadable],
    };
  }
  let tools: ConfigTools;
  try {
    tools = await loadConfigTools(root);
  } catch (error) {
    const problem = {
      rule: 'emitter',
      pointer: '',
      message: (error as Error).message,
      hint: `run \`npm install\` in ${shownDir}`,
    };
    return {
      status: 'failed',
      ...base,
      actorkit: null,
      configState: null,
      problems: [problem],
      emittedProblems: [],
      fileProblems: [],
    };
  }
  const actorkit: ActorkitUsed = { origin: tools.origin, version: tools.version, root: tools.root };
  logger.info('actor_validation_started', {
    actor_dir: root,
    actorkit_origin: tools.origin,
    actorkit_version: tools.version,
  });
  const emitted = await withSourceMaps(() =>
    tools
      .emitPlatformConfig(root, { check: options.write !== true })
      .catch((error: unknown) => emitterFailureProblem(error, root, shownDir)),
  );
  const fileProblems = await configFileProblems(configPath, tools);
  if ('rule' in emitted) {
    const problems = [emitted, ...fileProblems.map(inTheFile)];
    return { status: 'failed', ...base, actorkit, configState: null, problems, emittedProblems: [], fileProblems };
  }
  const emittedJson = typeof emitted.content === 'string' ? parseEmitted(emitted.content) : emitted.config;
  const emittedProblems = [...(emitted.problems ?? []), ...configProblems(emittedJson, tools)];
  const stale = staleProblem(emitted, actorDir);
  const problems = [
    ...(stale ? [stale] : []),
    ...emittedProblems,
    ...onlyInFile(fileProblems, emittedProblems).map(inTheFile),
  ];
  logger.info('actor_validated', { actor_dir: root, problems: problems.length });
  return {
    status: problems.length === 0 ? 'ok' : 'failed',
    ...base,
    written: emitted.written === true,
    routesWritten: options.write === true && (await rewriteRouteList(root)),
    actorkit,
    configState: emitted.state,
    problems,
    emittedProblems,
    fileProblems,
  };
}

/**
 * Rewrites README.md's route list from the definition; false when the README has no markers, the
 * list was already right, or the actor's app cannot be built here (the emission's problems say why).
 * The route list builds the actor's app, so the runtime is loaded only for `--write`.
 */
async function rewriteRouteList(root: string): Promise<boolean> {
  try {
    const { refreshOptionRoutes } = await import('../route-list/index.js');
    return (await refreshOptionRoutes(root)).written;
  } catch {
    return false;
  }
}

function parseEmitted(content: string): unknown {
  try {
    return JSON.parse(content);
  } catch {
    return content;
  }
}

/** The file's problems the emitted configuration does not have too (a fresh file has none of its own). */
function onlyInFile(fileProblems: readonly ActorProblem[], emittedProblems: readonly ActorProblem[]): ActorProblem[] {
  const key = (problem: ActorProblem) => `${problem.rule}\u0000${problem.pointer}\u0000${problem.message}`;
  const emitted = new Set(emittedProblems.map(key));
  return fileProblems.filter((problem) => !emitted.has(key(problem)));
}

function inTheFile(problem: ActorProblem): ActorProblem {
  return { ...problem, in: CONFIG_FILE };
}

function staleProblem(emitted: EmitOutcome, actorDir: string): ActorProblem | undefined {
  if (emitted.state === 'up-to-date' || emitted.written === true) return undefined;
  const hint = `regenerate it with \`actorkit validate --write ${actorDir}\``;
  if (emitted.state === 'missing') return { rule: 'emitter', pointer: '', message: `${CONFIG_FILE} is missing`, hint };
  const difference = emitted.difference;
  const shown = (line: string | undefined) => (line === undefined ? 'the end of the file' : `\`${line.trim()}\``);
  const where = difference
    ? `: line ${difference.line} should be ${shown(difference.expected)}, is ${shown(difference.actual)}`
    : '';
  return {
    rule: 'emitter',
    pointer: '',
    message: `${CONFIG_FILE} is stale, it differs from what the code emits${where}`,
    hint,
  };
}
