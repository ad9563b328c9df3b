import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { copyFile, link, lstat, mkdir, readdir, readlink, symlink } from 'node:fs/promises';
import { basename, dirname, join, posix, relative } from 'node:path';
import { contextFilesUnder, type BuildContext } from './build-context.js';
import { parseDockerfileStages, type ReplayStep } from './dockerfile-stages.js';
import { runShell } from './run-shell.js';

/** A stage after its replay: a folder standing for the stage's filesystem root. */
export interface ReplayedStage {
  readonly name: string;
  /** The folder that stands for `/` of the stage. */
  readonly root: string;
  /** The stage's last `WORKDIR`, a container path. */
  readonly workdir: string;
  /** The stage's `ENV` values. */
  readonly env: Readonly<Record<string, string>>;
  readonly cmd?: readonly string[];
  /** What the stage does (its steps without line numbers, and its CMD), to reuse it as a cache. */
  readonly key: string;
}

/** Where and with what a replay runs. */
export interface ReplayOptions {
  readonly context: BuildContext;
  /** A scratch folder; each stage gets `<workDir>/<stage name>`. */
  readonly workDir: string;
  /** The environment of every `RUN` line under the stage's `ENV` (PATH, HOME, npm settings). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /**
   * Stages of an earlier replay of the same build context, reused like Docker's layer cache: a
   * leading run of stages whose steps are unchanged is taken from here instead of replayed.
   */
  readonly cache?: readonly ReplayedStage[];
}

/**
 * Replays a Dockerfile's stages on the host (see {@link parseDockerfileStages} for what it
 * performs): each stage starts from an empty folder, gets exactly what its `COPY` lines name —
 * from the build context (`.dockerignore` applied) or, with `--from`, from an earlier stage's
 * folder — and runs its `RUN` lines with `sh -c` in its `WORKDIR`. Rejects at the first step that
 * fails, naming the stage, the line and what went wrong (with the command's output).
 * @param dockerfile the Dockerfile's text
 * @param options the build context, a scratch folder and the `RUN` environment
 */
export async function replayDockerfile(dockerfile: string, options: ReplayOptions): Promise<ReplayedStage[]> {
  const replayed: ReplayedStage[] = [];
  let reusing = true;
  for (const stage of parseDockerfileStages(dockerfile)) {
    const key = JSON.stringify({ steps: stage.steps.map(({ line: _line, ...step }) => step), cmd: stage.cmd });
    const cached = reusing
      ? options.cache?.find((candidate) => candidate.name === stage.name && candidate.key === key)
      : undefined;
    if (cached !== undefined) {
      replayed.push(cached);
      continue;
    }
    reusing = false;
    const root = join(options.workDir, stage.name);
    await mkdir(root, { recursive: true });
    let workdir = '/';
    const env: Record<string, string> = {};
    for (const step of stage.steps) {
      const where = `stage ${stage.name}, line ${step.line}`;
      if (step.kind === 'workdir') {
        workdir = posix.resolve(workdir, step.path);
        await mkdir(join(root, workdir), { recursive: true });
      } else if (step.kind === 'env') Object.assign(env, step.values);
      else if (step.kind === 'copy')
        await copyStep(step, { root, workdir, where, context: options.context, stages: replayed });
      else
        await runShell(step.command, {
          cwd: join(root, workdir),
          env: { ...options.env, ...env },
          where: `${where}: RUN`,
        });
    }
    replayed.push({ name: stage.name, root, workdir, env, key, ...(stage.cmd ? { cmd: stage.cmd } : {}) });
  }
  return replayed;
}

/**
 * Starts a replayed stage's `CMD` in its `WORKDIR`, with its `ENV` under `overrides` and nothing
 * else of the host but `PATH` (for `node`, standing in for the base image's).
 * @param stage the replayed stage, usually the last one
 * @param overrides e.g. `PORT` and `DATA_DIR` for a test
 */
export function startReplayedCmd(stage: ReplayedStage, overrides: Readonly<Record<string, string>>): ChildProcess {
  const [command, ...args] = stage.cmd ?? [];
  if (command === undefined) throw new Error(`stage ${stage.name} has no CMD`);
  return spawn(command, args, {
    cwd: join(stage.root, stage.workdir),
    env: { PATH: process.env.PATH, ...stage.env, ...overrides },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
}

type CopyStep = Extract<ReplayStep, { kind: 'copy' }>;

async function copyStep(
  step: CopyStep,
  target: { root: string; workdir: string; where: string; context: BuildContext; stages: readonly ReplayedStage[] },
): Promise<void> {
  const destination = posix.resolve(target.workdir, step.destination);
  const intoFolder = step.destination.endsWith('/') || step.sources.length > 1;
  const place = (source: string) =>
    join(target.root, intoFolder ? posix.join(destination, basename(source)) : destination);
  if (step.from !== undefined) {
    const from = target.stages.find((stage) => stage.name === step.from);
    if (from === undefined) throw new Error(`${target.where}: COPY --from=${step.from} names no earlier stage`);
    for (const source of step.sources) {
      const path = join(from.root, posix.resolve(from.workdir, source));
      if (!existsSync(path))
        throw new Error(`${target.where}: COPY --from=${step.from} ${source}: not found in stage ${from.name}`);
      await linkTree(path, statSync(path).isDirectory() ? join(target.root, destination) : place(source));
    }
    return;
  }
  const matched = step.sources.flatMap((source) => {
    const paths = target.context.match(source);
    if (paths.length === 0 && !/[*?[]/.test(source)) {
      const excluded = existsSync(join(target.context.dir, source)) ? ' (excluded by .dockerignore)' : '';
      throw new Error(`${target.where}: COPY ${source}: not in the build context${excluded}`);
    }
    return paths;
  });
  if (matched.length === 0) throw new Error(`${target.where}: COPY ${step.sources.join(' ')}: no source files`);
  for (const path of matched) {
    const absolute = join(target.context.dir, path);
    if (!statSync(absolute).isDirectory()) {
      await mkdir(dirname(place(path)), { recursive: true });
      await copyFile(absolute, place(path));
      continue;
    }
    for (const file of contextFilesUnder(target.context, absolute)) {
      const into = join(target.root, destination, relative(path, file));
      await mkdir(dirname(into), { recursive: true });
      await copyFile(join(target.context.dir, file), into);
    }
  }
}

/**
 * Copies a file or folder from an earlier stage as hard links (symlinks kept as they are): the
 * same files a copy would give, without writing a second node_modules to disk.
 */
async function linkTree(from: string, to: string): Promise<void> {
  const stats = await lstat(from);
  if (stats.isSymbolicLink()) return symlink(await readlink(from), to);
  if (!stats.isDirectory()) {
    await mkdir(dirname(to), { recursive: true });
    return link(from, to);
  }
  await mkdir(to, { recursive: true });
  for (const entry of await readdir(from)) await linkTree(join(from, entry), join(to, entry));
}
