import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Logger } from '../../src/log/logger.js';
import { silentLogger } from '../../src/log/logger.js';
import { CliError, toCliFailure, type CliFailure } from '../cli-error.js';
import { resolveCliIo, type CliIo } from '../cli-io.js';
import { confirm, createLinePrompter } from '../prompt/line-prompter.js';
import { validateActorDir, type ActorProblem } from '../validate/validate-actor-dir.js';
import { CONTAINER_CLI_ENV, containerCommands, runContainerCommand, type ContainerOutput } from './container-commands.js';
import { checkImageRepository, checkImageTag } from './image-reference.js';
import { platformUrl, registrationSteps } from './registration-steps.js';

/** The inputs of `actorkit publish`. */
export interface PublishActorOptions {
  /** `--repo`: the image repository; default `actorkit.deployment.image_repo` of package.json. */
  readonly repo?: string;
  /** `--tag`: the image tag; default `v<version>` of package.json. */
  readonly tag?: string;
  /** `--yes`: skip the confirmation (required without a terminal). */
  readonly yes?: boolean;
  /** Where the container CLI's output streams; default `io.stdout` and `io.stderr`. */
  readonly output?: ContainerOutput;
  readonly io?: Partial<CliIo>;
  readonly logger?: Logger;
}

/** What a successful `actorkit publish` pushed, and what to do next. */
export interface PublishActorSuccess {
  readonly status: 'ok';
  readonly actorDir: string;
  /** The pushed `<repo>:<tag>`. */
  readonly image: string;
  /** Every container CLI call made, executable first. */
  readonly commands: readonly (readonly string[])[];
  readonly registrationUrl: string;
  readonly steps: readonly string[];
}

/** A `publish` that stopped: refused, validation problems, or a container command failed. */
export type PublishActorFailure = CliFailure & {
  readonly problems?: readonly ActorProblem[];
  readonly commands?: readonly (readonly string[])[];
};

/**
 * Publishes an actor (`actorkit publish`): refuses without a terminal unless `yes`, validates
 * (stopping on problems), asks for confirmation in a terminal, then builds and pushes
 * `<repo>:<tag>` with the container CLI (`docker`, or `ACTORKIT_CONTAINER_CLI`) through zx. It
 * never deletes an image, a tag or a file. Never throws.
 * @param actorDir the actor's folder, relative to `io.cwd`.
 * @param options `repo`, `tag`, `yes`, streams.
 * @example
 * const result = await publishActor('.', { yes: true });
 * if (result.status === 'ok') console.log(result.steps.join('\n'));
 */
export async function publishActor(actorDir: string, options: PublishActorOptions = {}): Promise<PublishActorSuccess | PublishActorFailure> {
  const io = resolveCliIo(options.io);
  const logger = options.logger ?? silentLogger;
  const output = options.output ?? { stdout: io.stdout, stderr: io.stderr };
  const root = resolve(io.cwd, actorDir);
  const done: string[][] = [];
  try {
    const manifest = await readActorPackage(root);
    const repo = checkImageRepository(options.repo ?? manifest.imageRepo ?? missing('no_image_repo', 'no --repo given and package.json has no actorkit.deployment.image_repo'));
    const tag = checkImageTag(options.tag ?? (manifest.version ? `v${manifest.version}` : missing('no_version', 'no --tag given and package.json has no version')));
    const image = `${repo}:${tag}`;
    if (!existsSync(join(root, 'Dockerfile'))) throw new CliError('refused', 'no_dockerfile', `${root} has no Dockerfile to build`);
    const baseUrl = platformUrl(io.env);
    if (options.yes !== true && !io.interactive) {
      throw new CliError('refused', 'confirmation_required', `publish builds and pushes ${image}; confirm in a terminal, or pass --yes`);
    }
    const validation = await validateActorDir(root, { io, logger });
    if (validation.status === 'refused') return validation;
    if (validation.status === 'failed') {
      const problems = 'problems' in validation ? validation.problems : [];
      return { status: 'failed', code: 'validation_failed', message: `${root} does not validate; nothing was built or pushed`, problems };
    }
    const cli = io.env[CONTAINER_CLI_ENV]?.trim() || 'docker';
    const commands = containerCommands(image, root);
    if (options.yes !== true) {
      const prompter = createLinePrompter(io);
      const plan = commands.map((args) => `  ${[cli, ...args].join(' ')}`).join('\n');
      prompter.say(`publish will run:\n${plan}`);
      const agreed = await confirm(prompter, `Build and push ${image}?`).finally(() => prompter.close());
      if (!agreed) throw new CliError('refused', 'not_confirmed', 'publish cancelled; nothing was built or pushed');
    }
    for (const args of commands) {
      output.stderr.write(`$ ${[cli, ...args].join(' ')}\n`);
      logger.info('container_command_started', { cli, command: args[0] });
      done.push([cli, ...args]);
      await runContainerCommand(cli, args, { cwd: root, env: io.env, output });
    }
    logger.info('actor_published', { image });
    return { status: 'ok', actorDir: root, image, commands: done, registrationUrl: `${baseUrl}/home/creator/register-actor`, steps: registrationSteps(baseUrl, image) };
  } catch (error) {
    const failure = toCliFailure(error);
    logger.warn('actor_publish_stopped', { status: failure.status, code: failure.code });
    return done.length > 0 ? { ...failure, commands: done } : failure;
  }
}

async function readActorPackage(root: string): Promise<{ version?: string; imageRepo?: string }> {
  let json: unknown;
  try {
    json = JSON.parse(await readFile(join(root, 'package.json'), 'utf8'));
  } catch (error) {
    throw new CliError('refused', 'not_an_actor', `${root} is not an actor folder: cannot read package.json (${(error as Error).message})`);
  }
  const record = (json ?? {}) as { version?: unknown; actorkit?: { deployment?: { image_repo?: unknown } } };
  return {
    ...(typeof record.version === 'string' && record.version !== '' ? { version: record.version } : {}),
    ...(typeof record.actorkit?.deployment?.image_repo === 'string' ? { imageRepo: record.actorkit.deployment.image_repo } : {}),
  };
}

function missing(code: string, message: string): never {
  throw new CliError('refused', code, message);
}
