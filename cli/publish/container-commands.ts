import { join } from 'node:path';
import { $ } from 'zx';
import { CliError } from '../cli-error.js';

/** The environment variable naming the container CLI (default `docker`; `podman` works too). */
export const CONTAINER_CLI_ENV = 'ACTORKIT_CONTAINER_CLI';

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
 * The container CLI call that asks the registry whether `image` already exists: `manifest inspect
 * <repo>:<tag>`. Exit 0 means it does; any other exit is read as "not there" (or the registry
 * could not say: no login, unreachable), and publish goes on without a warning.
 * @param image `<repo>:<tag>`.
 */
export function tagExistsCommand(image: string): string[] {
  return ['manifest', 'inspect', image];
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
  const result = await $({ cwd: options.cwd, env: { ...options.env }, quiet: true, verbose: false, nothrow: true, stdio: ['ignore', 'pipe', 'pipe'] })`${cli} ${args}`;
  return result.exitCode;
}

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
    throw new CliError('failed', 'container_command_failed', `\`${cli} ${args.join(' ')}\` exited with ${result.exitCode ?? result.signal}`);
  }
}

function forward(from: NodeJS.ReadableStream, to: NodeJS.WritableStream): void {
  from.on('data', (chunk: Buffer) => to.write(chunk));
}
