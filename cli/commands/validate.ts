import { join } from 'node:path';
import { defineCommand } from 'citty';
import { PLATFORM_RULE_RANGE } from '../../src/sdk/index.js';
import { CONFIGURATION_CHECKS } from '../validate/configuration-checks.js';
import { printFailure, printJson, sharedArgs, startCommand, verbMeta } from './_shared.js';
import { problemBullet } from '../validate/actor-problem.js';

const args = {
  actor_dir: { type: 'positional', description: 'The actor folder to check', required: false, default: '.' },
  write: {
    type: 'boolean',
    description: "Write src/platform/config.json (and README.md's route list) from the code before checking it",
  },
  ...sharedArgs,
} as const;

/** `actorkit validate [actor_dir]`: emits the configuration in check mode and checks it (the current folder by default). */
export default defineCommand({
  meta: verbMeta({
    name: 'validate',
    description: `Check an actor: emit its configuration, then the platform schema, rules ${PLATFORM_RULE_RANGE} and the settings' defaults`,
    example: 'actorkit validate ./weather',
  }),
  args,
  async run(context) {
    const { io, logger } = startCommand('validate', context, args);
    const { validateActorDir } = await import('../validate/validate-actor-dir.js');
    const result = await validateActorDir(context.args.actor_dir, {
      write: context.args.write === true,
      io,
      logger,
    });
    if (context.args.json) printJson(io, result);
    else if (!('problems' in result)) printFailure(io, result);
    else {
      const used = result.actorkit;
      if (used) {
        const which = used.origin === 'actor' ? "the actor's own" : "the CLI's own (none installed for the actor)";
        io.stdout.write(`using ${which} actorkit ${used.version} at ${used.root}\n`);
      }
      if (result.written) io.stdout.write(`wrote ${result.configPath}\n`);
      if (result.routesWritten) {
        const { OPTION_ROUTES_README } = await import('../route-list/index.js');
        io.stdout.write(`wrote the route list in ${join(result.actorDir, OPTION_ROUTES_README)}\n`);
      }
      if (result.status === 'ok') io.stdout.write(`${result.configPath} is valid: ${CONFIGURATION_CHECKS}\nOK\n`);
      else {
        const count = result.problems.length;
        io.stdout.write(`${result.configPath} is not valid: ${count} problem${count === 1 ? '' : 's'}\n`);
        for (const problem of result.problems) io.stdout.write(`${problemBullet(problem)}\n`);
      }
    }
    return result;
  },
});
