import { accessSync, constants, statSync } from 'node:fs';
import { basename, delimiter, join } from 'node:path';
import { $ } from 'zx';
import { CliError } from '../cli-error.js';

/** The environment variable naming the container CLI; without it, the first of {@link CONTAINER_CLIS} on PATH. */
export const CONTAINER_CLI_ENV = 'ACTORKIT_CONTAINER_CLI';

/** The container CLIs publish looks for on PATH, in this order; each takes the same `build` and `push` calls. */
export const CONTAINER_CLIS = ['docker', 'podman', 'buildah'] as const;

/** Which container CLIs a verb can work with, in the order it looks for them, and what it says when none is there. */
export interface ContainerCliNeed {
  /** The CLIs looked for on PATH, first found wins. */
  readonly clis: readonly string[];
  /** The refusal's words before "and found none of …", e.g. `publish builds with a container CLI`. */
  readonly purpose: string;
  /** The refusal's last words, e.g. `nothing was built or pushed`. */
  readonly outcome: string;
}

/** What `publish` needs: a CLI that builds and pushes. */
const PUBLISH_NEED: ContainerCliNeed = {
  clis: CONTAINER_CLIS,
  purpose: 'publish builds with a container CLI',
  outcome: 'nothing was built or pushed',
};

/**
 * The container CLI a verb runs: `ACTORKIT_CONTAINER_CLI` when set, else the first of
 * `need.clis` found on PATH (publish: `docker`, `podman`, `buildah`); none is a `refused`
 * {@link CliError} (`no_container_cli`).
 * @param env the environment (its `PATH` and `ACTORKIT_CONTAINER_CLI`).
 * @param need the CLIs the verb can use and its refusal's words; publish's by default.
 */
export function chooseContainerCli(
  env: Readonly<Record<string, string | undefined>>,
  need: ContainerCliNeed = PUBLISH_NEED,
): string {
  const named = env[CONTAINER_CLI_ENV]?.trim();
  if (named) return named;
  const found = need.clis.find((name) => onPath(name, env.PATH ?? ''));
  if (found) return found;
  throw new CliError(
    'refused',
    'no_container_cli',
    `${need.purpose} and found none of ${need.clis.join(', ')} on PATH: install one, or name it in ${CONTAINER_CLI_ENV}; ${need.outcome}`,
  );
}

function onPath(name: string, path: string): boolean {
  return path.split(delimiter).some((dir) => {
    if (dir === '') return false;
    try {
      accessSync(join(dir, name), constants.X_OK);
      return statSync(join(dir, name)).isFile();
    } catch {
      return false;
    }
  });
}

/**
 * The exact container CLI calls `publish` makes, in order: build the image from the actor's
 * Dockerfile, tagged `<repo>:<tag>`, then push that tag. Nothing else: no `latest`, no removal.
 * @param image `<repo>:<tag>`.
 * @param actorDir absolute path of the actor folder (the build context).
 * @example
 * containerCommands('ghcr.io/acme/weather:v1.2.0', '/src/weather');
 * // [['build', '-f', '/src/weather/Dockerfile', '-t', 'ghcr.io/acme/weather:v1.2.0', '/src/weather'],
 * //  ['push', 'ghcr.io/acme/weather:v1.2.0']]
 */
export function containerCommands(image: string, actorDir: string): string[][] {
  return [
    ['build', '-f', join(actorDir, 'Dockerfile'), '-t', image, actorDir],
    ['push', image],
  ];
}

/**
 * The call that asks the registry whether `image` already exists, executable first: `docker
 * manifest inspect <repo>:<tag>`; for podman and buildah, whose `manifest inspect` reads only
 * manifest lists, `skopeo inspect --raw docker://<repo>:<tag>` (same registry configuration and
 * logins). Exit 0 means it does; any other exit is read as "not there" (or the registry could not
 * say: no login, unreachable), and publish goes on without a warning.
 * @param cli the container CLI publish runs.
 * @param image `<repo>:<tag>`.
 */
export function tagExistsCommand(cli: string, image: string): string[] {
  const engine = basename(cli);
  return engine === 'podman' || engine === 'buildah'
    ? ['skopeo', 'inspect', '--raw', `docker://${image}`]
    : [cli, 'manifest', 'inspect', image];
}

/**
 * Runs one container CLI call quietly (its output is read, not shown) and resolves with its exit
 * code; a CLI that cannot be started at all resolves with `null`.
 * @param cli the container CLI executable.
 * @param args its arguments, e.g. from {@link tagExistsCommand}.
 * @param options the working folder and environment.
 */
export async function probeContainerCommand(
  cli: string,
  args: readonly string[],
  options: { cwd: string; env: Readonly<Record<string, string | undefined>> },
): Promise<number | null> {
  const result = await $({
    cwd: options.cwd,
    env: { ...options.env },
    quiet: true,
    verbose: false,
    nothrow: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  })`${cli} ${args}`;
  return result.exitCode === COMMAND_NOT_FOUND ? null : result.exitCode;
}

/** The shell's exit code for a command it cannot find. */
const COMMAND_NOT_FOUND = 127;

/** Where a container command's output goes while it runs. */
export interface ContainerOutput {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
}

/**
 * Runs one container CLI call through zx (arguments quoted by zx, never pasted into a shell
 * line), streaming its output as it comes; a non-zero exit is a `failed` {@link CliError} with
 * code `container_command_failed`.
 * @param cli the container CLI executable, e.g. `docker`.
 * @param args its arguments, from {@link containerCommands}.
 * @param options the working folder, environment and output streams.
 */
export async function runContainerCommand(
  cli: string,
  args: readonly string[],
  options: { cwd: string; env: Readonly<Record<string, string | undefined>>; output: ContainerOutput },
): Promise<void> {
  const child = $({
    cwd: options.cwd,
    env: { ...options.env },
    quiet: true,
    verbose: false,
    nothrow: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  })`${cli} ${args}`;
  forward(child.stdout, options.output.stdout);
  forward(child.stderr, options.output.stderr);
  const result = await child;
  if (result.exitCode !== 0) {
    const other = CONTAINER_CLIS.filter((name) => name !== basename(cli)).join(' or ');
    throw new CliError(
      'failed',
      'container_command_failed',
      `\`${cli} ${args.join(' ')}\` exited with ${result.exitCode ?? result.signal} (to build with ${other}, set ${CONTAINER_CLI_ENV})`,
    );
  }
}

function forward(from: NodeJS.ReadableStream, to: NodeJS.WritableStream): void {
  from.on('data', (chunk: Buffer) => to.write(chunk));
}
