import { defineCommand } from 'citty';
import { printFailure, printJson, sharedArgs, startCommand, verbMeta } from './_shared.js';
import { problemBullet } from '../validate/actor-problem.js';

const args = {
  actor_dir: {
    type: 'positional',
    description: 'The actor folder to publish (default: the current folder)',
    required: false,
    default: '.',
  },
  repo: {
    type: 'string',
    valueHint: 'image_repo',
    description: 'Image repository (default: package.json actorkit.deployment.image_repo)',
  },
  tag: { type: 'string', valueHint: 'tag', description: 'Image tag (default: v<package.json version>; never latest)' },
  bump: {
    type: 'string',
    valueHint: 'patch|minor|major',
    description: 'Raise the version and emit src/platform/config.json again before building',
  },
  yes: { type: 'boolean', description: 'Do not ask for confirmation (required without a terminal)' },
  ...sharedArgs,
} as const;

/** `actorkit publish [actor_dir]`: validates, then builds and pushes the actor's image. */
export default defineCommand({
  meta: verbMeta({
    name: 'publish',
    description: 'Validate, build and push the actor image, then show the registration steps',
    example: 'actorkit publish . --bump patch',
  }),
  args,
  async run(context) {
    const { io, logger } = startCommand('publish', context, args);
    const json = context.args.json === true;
    const { publishActor } = await import('../publish/publish-actor.js');
    const result = await publishActor(context.args.actor_dir, {
      repo: context.args.repo,
      tag: context.args.tag,
      bump: context.args.bump,
      yes: context.args.yes === true,
      ...(json ? { output: { stdout: io.stderr, stderr: io.stderr } } : {}),
      io,
      logger,
    });
    if (json) printJson(io, result);
    else if (result.status !== 'ok') {
      printFailure(io, result);
      for (const problem of result.problems ?? []) io.stderr.write(`${problemBullet(problem)}\n`);
    } else {
      if (result.bump)
        io.stdout.write(
          `Version ${result.bump.from} -> ${result.bump.to} (${result.bump.files.join(', ')}, src/platform/config.json)\n`,
        );
      io.stdout.write(`Pushed ${result.image}\n\nRegister the actor in the creator hub:\n`);
      result.steps.forEach((step, index) => io.stdout.write(`  ${index + 1}. ${step}\n`));
    }
    return result;
  },
});
