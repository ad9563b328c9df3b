import { existsSync } from 'node:fs';
import { join, resolve, isAbsolute, relative, sep } from 'node:path';
import { type Logger, silentLogger } from '../../src/index.js';
import { CliError, toCliFailure, type CliFailure } from '../cli-error.js';
import { resolveCliIo, type CliIo } from '../cli-io.js';
import { confirm, createLinePrompter } from '../prompt/line-prompter.js';
import { validateActorDir, type ActorProblem } from '../validate/validate-actor-dir.js';
import { planVersionBump, writeVersionBump, type VersionBump } from './bump-version.js';
import {
  chooseContainerCli,
  containerCommands,
  probeContainerCommand,
  runContainerCommand,
  tagExistsCommand,
  type ContainerOutput,
} from './container-commands.js';
import { actorImageRepository, actorImageTag, readActorPackage } from './actor-image.js';
import { platformUrl, registrationSteps } from './registration-steps.js';

/** The inputs of `actorkit publish`. */
export interface PublishActorOptions {
  /** `--repo`: the image repository; default `actorkit.deployment.image_repo` of package.json. */
  readonly repo?: string;
  /** `--tag`: the image tag; default `v<version>` of package.json (after `bump`); never `latest`. */
  readonly tag?: string;
  /** `--bump`: raise the version (`patch`, `minor`, `major`) and emit the configuration again before building. */
  readonly bump?: string;
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
  /** Every container CLI call made, executable first: the registry probe, the build, the push. */
  readonly commands: readonly (readonly string[])[];
  /** The version raise `--bump` wrote, if any. */
  readonly bump?: VersionBump;
  /** What publish warned about on standard error, e.g. that the push replaces an existing tag. */
  readonly warnings: readonly string[];
  readonly registrationUrl: string;
  readonly steps: readonly string[];
}

/** A `publish` that stopped: refused, validation problems, or a container command failed. */
export type PublishActorFailure = CliFailure & {
  readonly problems?: readonly ActorProblem[];
  readonly commands?: readonly (readonly string[])[];
};

/**
 * Publishes an actor (`actorkit publish`): refuses a dependency outside the build context, a
 * `latest` tag, and — without a terminal — a run without `yes`; validates (stopping on
 * problems); asks the registry whether the tag exists (a warning: the push replaces it); asks for
 * confirmation in a terminal; with `bump`, raises the version and emits `src/platform/config.json`
 * again; then builds and pushes `<repo>:<tag>` with the container CLI (`docker`, or
 * `ACTORKIT_CONTAINER_CLI`) through zx. It never deletes an image, a tag or a file. Never throws.
 * @param actorDir the actor's folder, relative to `io.cwd`.
 * @param options `repo`, `tag`, `bump`, `yes`, streams.
 * @example
 * const result = await publishActor('.', { yes: true, bump: 'patch' });
 * if (result.status === 'ok') console.log(result.steps.join('\n'));
 */
export async function publishActor(
  actorDir: string,
  options: PublishActorOptions = {},
): Promise<PublishActorSuccess | PublishActorFailure> {
  const io = resolveCliIo(options.io);
  const logger = options.logger ?? silentLogger;
  const output = options.output ?? { stdout: io.stdout, stderr: io.stderr };
  const root = resolve(io.cwd, actorDir);
  const done: string[][] = [];
  const warnings: string[] = [];
  const warn = (warning: string) => {
    warnings.push(warning);
    output.stderr.write(`warning: ${warning}\n`);
  };
  try {
    const manifest = await readActorPackage(root);
    refuseDependenciesOutsideBuildContext(manifest.json, root);
    const repo = actorImageRepository(manifest, options.repo);
    const bump = options.bump === undefined ? undefined : await planVersionBump(root, manifest.version, options.bump);
    const image = `${repo}:${actorImageTag(options.tag, bump?.to ?? manifest.version)}`;
    if (!existsSync(join(root, 'Dockerfile')))
      throw new CliError('refused', 'no_dockerfile', `${root} has no Dockerfile to build`);
    const baseUrl = platformUrl(io.env);
    const cli = chooseContainerCli(io.env);
    if (options.yes !== true && !io.interactive) {
      throw new CliError(
        'refused',
        'confirmation_required',
        `publish builds and pushes ${image}; confirm in a terminal, or pass --yes`,
      );
    }
    const validation = await validateActorDir(root, { io, logger });
    const stopped = validationStop(validation, `${root} does not validate; nothing was built or pushed`);
    if (stopped) return stopped;
    const [prober, ...probe] = tagExistsCommand(cli, image) as [string, ...string[]];
    done.push([prober, ...probe]);
    const probed = await probeContainerCommand(prober, probe, { cwd: root, env: io.env });
    const exists = probed === 0;
    if (exists) warn(`${image} already exists in the registry; pushing replaces it`);
    if (probed === null)
      warn(
        `cannot tell whether ${image} exists in the registry (${prober} could not be run); pushing replaces it if it does`,
      );
    if (bump && !bump.definitionRaised) {
      warn(
        `src/actor.ts holds no literal version '${bump.from}': set metadata.version to '${bump.to}' yourself, or the configuration keeps the old one`,
      );
    }
    const commands = containerCommands(image, root);
    if (options.yes !== true) {
      const prompter = createLinePrompter(io);
      const plan = [
        ...(bump
          ? [
              `  set the version ${bump.from} -> ${bump.to} in ${bump.files.join(' and ')}, then emit src/platform/config.json`,
            ]
          : []),
        ...commands.map((args) => `  ${[cli, ...args].join(' ')}`),
      ].join('\n');
      prompter.say(`publish will:\n${plan}`);
      const question = exists
        ? `Build and push ${image}, replacing the image the registry has under that tag?`
        : `Build and push ${image}?`;
      const agreed = await confirm(prompter, question).finally(() => prompter.close());
      if (!agreed) throw new CliError('refused', 'not_confirmed', 'publish cancelled; nothing was built or pushed');
    }
    if (bump) {
      await writeVersionBump(root, bump);
      logger.info('actor_version_bumped', { from: bump.from, to: bump.to });
      const emitted = await validateActorDir(root, { write: true, io, logger });
      const failed = validationStop(
        emitted,
        `${root} does not validate after the version bump to ${bump.to} (${bump.files.join(' and ')} changed); nothing was built or pushed`,
      );
      if (failed) return failed;
    }
    for (const args of commands) {
      output.stderr.write(`$ ${[cli, ...args].join(' ')}\n`);
      logger.info('container_command_started', { cli, command: args[0] });
      done.push([cli, ...args]);
      await runContainerCommand(cli, args, { cwd: root, env: io.env, output });
    }
    logger.info('actor_published', { image });
    return {
      status: 'ok',
      actorDir: root,
      image,
      commands: done,
      ...(bump ? { bump } : {}),
      warnings,
      registrationUrl: `${baseUrl}/home/creator/register-actor`,
      steps: registrationSteps(baseUrl, image),
    };
  } catch (error) {
    const failure = toCliFailure(error);
    logger.warn('actor_publish_stopped', { status: failure.status, code: failure.code });
    return done.length > 0 ? { ...failure, commands: done } : failure;
  }
}

/** The failure to return when a validation did not pass, else `undefined`. */
function validationStop(
  validation: Awaited<ReturnType<typeof validateActorDir>>,
  message: string,
): PublishActorFailure | undefined {
  if (validation.status === 'refused') return validation;
  if (validation.status !== 'failed') return undefined;
  const problems = 'problems' in validation ? validation.problems : [];
  return { status: 'failed', code: 'validation_failed', message, problems };
}

const DEPENDENCY_FIELDS = ['dependencies', 'devDependencies', 'optionalDependencies'] as const;

/**
 * Refuses (code `dependency_outside_build_context`) an actor whose `package.json` has a `file:`
 * or `link:` dependency pointing outside the actor folder — like the `file:<checkout>` link to
 * actorkit that `actorkit new` writes when run from a source checkout. The image is built with
 * the actor folder as its build context, so `npm ci` inside the build cannot see that path.
 * @param manifest the parsed `package.json`
 * @param root absolute path of the actor folder
 */
function refuseDependenciesOutsideBuildContext(manifest: Record<string, unknown>, root: string): void {
  for (const field of DEPENDENCY_FIELDS) {
    const dependencies = manifest[field];
    if (typeof dependencies !== 'object' || dependencies === null) continue;
    for (const [name, spec] of Object.entries(dependencies)) {
      const local = typeof spec === 'string' ? /^(file|link):(.*)$/.exec(spec) : null;
      if (!local) continue;
      const fromRoot = relative(root, resolve(root, local[2] ?? ''));
      if (fromRoot !== '..' && !fromRoot.startsWith(`..${sep}`) && !isAbsolute(fromRoot)) continue;
      throw new CliError(
        'refused',
        'dependency_outside_build_context',
        `${field}.${name} is '${spec}', outside ${root}: the image is built with the actor folder as its build context, ` +
          `so \`npm ci\` in the build cannot see that path. Depend on ${name} from a registry (e.g. "${name}": "^<version>", then ` +
          `\`npm install\`), or vendor its tarball inside the actor folder (\`npm pack\` it into ./vendor, depend on ` +
          `"file:vendor/<tarball>.tgz" and COPY vendor/ in the Dockerfile's install stages); nothing was built or pushed`,
      );
    }
  }
}
