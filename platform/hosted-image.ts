import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { basename } from 'node:path';
import type { PlatformConfig } from '../src/sdk/index.js';
import { validatePlatformConfig } from '../src/sdk/index.js';
import {
  chooseContainerCli,
  CliError,
  CONTAINER_CLI_ENV,
  signalProcess,
  type ContainerCliNeed,
} from '../cli/library.js';
import type { RegisteredActor, RegistrationFailure } from './register-actor.js';
import type { ReplicaRunner } from './replica-slot.js';

/** The engines that run containers, in the order `actorkit platform --image` looks for them (buildah only builds). */
const RUNNING_ENGINES: ContainerCliNeed = {
  clis: ['podman', 'docker'],
  purpose: 'actorkit platform --image runs containers with an engine',
  outcome: 'nothing was pulled or run',
};

/**
 * Where `npm run build` leaves the configuration in the image, relative to its working folder:
 * the actor's code imports `src/platform/config.json`, which the build copies into `dist/`, and
 * the image's command runs `dist/main.node.js` from that folder.
 */
const CONFIG_IN_IMAGE = 'dist/platform/config.json';

/** How many characters of an engine's error output a refusal quotes. */
const QUOTED_CHARACTERS = 300;

/** A published image the platform runs: the engine that pulled it and what the image itself says. */
export interface HostedImage {
  /** The reference as given, e.g. `127.0.0.1:5000/actors/weather:v1.2.0`. */
  readonly ref: string;
  /** The engine that pulled it and runs its containers (`podman`, `docker`, or `ACTORKIT_CONTAINER_CLI`). */
  readonly engine: string;
  /** The image's `DATA_DIR` (its SQLite folder), when it sets one. */
  readonly dataDir: string | undefined;
}

/** What an engine call printed and how it ended. */
interface EngineAnswer {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs one engine call, its output read, not shown; an engine that cannot be started is refused as `no_container_cli`. */
function runEngine(
  engine: string,
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): Promise<EngineAnswer> {
  return new Promise((resolve, reject) => {
    const child = spawn(engine, args, { env: { ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', (error) =>
      reject(
        new CliError(
          'refused',
          'no_container_cli',
          `the container engine '${engine}' could not be started (${error.message}): install podman or docker, or name one in ${CONTAINER_CLI_ENV}; nothing was pulled or run`,
        ),
      ),
    );
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The engine's complaint on one line, shortened. */
function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > QUOTED_CHARACTERS ? `${line.slice(0, QUOTED_CHARACTERS)}…` : line;
}

/**
 * Registers a published image as `registerActor` registers a folder: picks the engine (`podman`,
 * then `docker`, or `ACTORKIT_CONTAINER_CLI`), pulls the image from its registry (`image_pull_failed`
 * when it cannot), reads the `config.json` the image carries and validates it with the platform
 * schema and rules (`invalid_config` with the problems), and reads the image's `DATA_DIR`.
 * @param ref the image reference, e.g. `127.0.0.1:5000/actors/weather:v1.2.0`
 * @param env the platform's environment: the engine runs with it
 */
export async function registerImage(
  ref: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<(RegisteredActor & { readonly image: HostedImage }) | RegistrationFailure> {
  const engine = chooseContainerCli(env, RUNNING_ENGINES);
  if (basename(engine) === 'buildah')
    throw new CliError(
      'refused',
      'no_container_cli',
      `${CONTAINER_CLI_ENV} names buildah, which builds images but runs no container: name podman or docker; nothing was pulled or run`,
    );
  const pulled = await runEngine(engine, ['pull', '--quiet', ref], env);
  if (pulled.code !== 0)
    throw new CliError(
      'failed',
      'image_pull_failed',
      `${engine} could not pull ${ref}: ${oneLine(pulled.stderr) || `exit ${pulled.code}`}`,
    );
  const inspected = await runEngine(engine, ['image', 'inspect', '--format', '{{json .Config}}', ref], env);
  const imageConfig = JSON.parse(inspected.code === 0 ? inspected.stdout : '{}') as {
    Env?: string[] | null;
    WorkingDir?: string;
  };
  const workingDir = imageConfig.WorkingDir || '/';
  const configPath = `${workingDir.replace(/\/$/, '')}/${CONFIG_IN_IMAGE}`;
  const read = await runEngine(
    engine,
    ['run', '--rm', '--network', 'none', '--entrypoint', 'cat', ref, configPath],
    env,
  );
  let config: unknown;
  try {
    if (read.code !== 0) throw new Error(oneLine(read.stderr) || `exit ${read.code}`);
    config = JSON.parse(read.stdout);
  } catch (error) {
    throw new CliError(
      'refused',
      'not_an_actor_image',
      `${ref} carries no readable ${configPath} (${(error as Error).message}): actorkit platform --image runs images that actorkit publish built`,
    );
  }
  const { problems } = validatePlatformConfig(config);
  if (problems.length > 0)
    return {
      status: 'refused',
      code: 'invalid_config',
      message: `${configPath} in ${ref} is not valid, so the platform does not register it: ${problems.length} problem${problems.length === 1 ? '' : 's'}`,
      actorDir: ref,
      problems,
    };
  const platformConfig = config as PlatformConfig;
  const dataDir = imageConfig.Env?.find((line) => line.startsWith('DATA_DIR='))?.slice('DATA_DIR='.length);
  return { dir: ref, ref: platformConfig.actor.slug, config: platformConfig, image: { ref, engine, dataDir } };
}

/**
 * The named volume that keeps an image actor's SQLite folder across runs, one per actor and state
 * folder (as `<state dir>/data/<ref>` is for a folder actor).
 * @param ref the actor's instance ref
 * @param stateDir the platform's state folder (absolute)
 */
export function imageDataVolume(ref: string, stateDir: string): string {
  return `actorkit-${ref}-${createHash('sha256').update(stateDir).digest('hex').slice(0, 8)}`;
}

/** What {@link containerRunner} runs. */
export interface ContainerRunnerOptions {
  readonly image: HostedImage;
  /** The container's name before `-<start>`, e.g. `actorkit-weather-0-<run>`. */
  readonly name: string;
  /** The replica's environment, without `PORT`: passed by name (`--env NAME`), so no value is on a command line. */
  readonly env: Readonly<Record<string, string>>;
  /** The platform's environment: the engine runs with it. */
  readonly engineEnv: Readonly<Record<string, string | undefined>>;
  /** A named volume and where the container mounts it (the SQLite folder). */
  readonly volume?: { readonly source: string; readonly target: string };
}

/**
 * Runs each replica as a container of a published image: `<engine> run --rm --name <name>-<n>
 * --network host --env NAME… [--volume …] <image>`, attached, so the engine's client is the child
 * the slot watches: its output is the container's, it ends when the container does, and it passes
 * SIGTERM on to it (the actor drains and exits, and the engine removes it). On the host's network
 * the `PORT` and `HOST=127.0.0.1` the platform sets decide where the replica listens, and
 * `DATABASE_URL`, the model servers and the sibling service addresses on 127.0.0.1 are reached as
 * from a process. A replica that outlives its grace is removed with `<engine> rm --force`.
 * @param options the image, the name, the environment and the volume
 */
export function containerRunner(options: ContainerRunnerOptions): ReplicaRunner {
  const names = new Map<ChildProcess, string>();
  let starts = 0;
  return {
    start(port) {
      const name = `${options.name}-${starts++}`;
      const env = { ...options.env, PORT: String(port) };
      const args = ['run', '--rm', '--name', name, '--network', 'host'];
      for (const variable of Object.keys(env)) args.push('--env', variable);
      if (options.volume !== undefined) args.push('--volume', `${options.volume.source}:${options.volume.target}`);
      args.push(options.image.ref);
      const child = spawn(options.image.engine, args, {
        env: { ...options.engineEnv, ...env },
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      names.set(child, name);
      child.once('close', () => names.delete(child));
      return child;
    },
    kill(child) {
      const name = names.get(child);
      if (name === undefined) return signalProcess(child, 'SIGKILL');
      const remove = spawn(options.image.engine, ['rm', '--force', name], {
        env: { ...options.engineEnv },
        stdio: 'ignore',
      });
      const killClient = () => signalProcess(child, 'SIGKILL');
      remove.once('close', killClient);
      remove.once('error', killClient);
    },
  };
}
